import { describe, expect, it } from "vitest";
import {
  decisionHistoryQuerySchema,
  decodeHistoryCursor,
  encodeHistoryCursor,
  parseDecisionHistoryParams,
  toDecisionHistorySearchParams,
} from "../../lib/queries/decision-history";

// The decision history's filter from a URL: the page drops what does not parse and says which; the CSV
// export refuses it (an audit file must not hold more than was asked for). Cursors are opaque strings.

describe("the history page's filter", () => {
  it("reads reviewer, tool, decision and an inclusive range of days; blank fields are no filter", () => {
    const { filter, ignored } = parseDecisionHistoryParams({
      reviewer: " rita@example.com ",
      tool: "payments.refund",
      decision: "REJECTED",
      from: "2031-03-01",
      to: "2031-03-31",
      q: "unknown",
    });
    expect(filter).toEqual({
      reviewer: "rita@example.com",
      tool: "payments.refund",
      decision: "REJECTED",
      from: "2031-03-01",
      to: "2031-03-31",
    });
    expect(ignored).toEqual([]);
    expect(parseDecisionHistoryParams({ reviewer: "", tool: "  ", decision: "", from: "", to: "" })).toEqual({
      filter: {},
      ignored: [],
    });
  });

  it("drops a value that does not parse and names it, keeping the others", () => {
    const { filter, ignored } = parseDecisionHistoryParams({
      tool: "payments.refund",
      decision: "PENDING",
      from: "2031-02-30",
      to: "31/03/2031",
    });
    expect(filter).toEqual({ tool: "payments.refund" });
    expect(ignored).toEqual(["decision", "from", "to"]);
  });

  it("drops a `to` before `from`, and takes the first of a repeated key", () => {
    expect(parseDecisionHistoryParams({ from: "2031-03-10", to: "2031-03-09" })).toEqual({
      filter: { from: "2031-03-10" },
      ignored: ["to"],
    });
    expect(parseDecisionHistoryParams({ from: "2031-03-10", to: "2031-03-10" }).filter).toEqual({
      from: "2031-03-10",
      to: "2031-03-10",
    });
    expect(parseDecisionHistoryParams({ decision: ["EXPIRED", "APPROVED"] }).filter).toEqual({ decision: "EXPIRED" });
  });

  it("keeps a cursor that decodes and opens the first page for one that does not", () => {
    const cursor = encodeHistoryCursor("older", { decidedAt: new Date("2031-03-01T10:00:00.000Z"), id: "pkt_a.b" });
    expect(decodeHistoryCursor(cursor)).toEqual({
      direction: "older",
      decidedAt: new Date("2031-03-01T10:00:00.000Z"),
      id: "pkt_a.b",
    });
    expect(decodeHistoryCursor(encodeHistoryCursor("newer", { decidedAt: new Date(5), id: "x" }))).toMatchObject({
      direction: "newer",
      id: "x",
    });
    expect(parseDecisionHistoryParams({ cursor }).filter).toEqual({ cursor });
    expect(parseDecisionHistoryParams({ cursor: "page-2" })).toEqual({ filter: {}, ignored: [] });
    expect(decodeHistoryCursor(undefined)).toBeUndefined();
  });

  it("writes a filter back to search params that parse to the same filter", () => {
    const filter = { reviewer: "rita@example.com", decision: "EDITED" as const, from: "2031-03-01", cursor: "o1.pkt" };
    const params = toDecisionHistorySearchParams(filter);
    expect(params.toString()).toBe("reviewer=rita%40example.com&decision=EDITED&from=2031-03-01&cursor=o1.pkt");
    expect(parseDecisionHistoryParams(Object.fromEntries(params)).filter).toEqual(filter);
  });
});

describe("the CSV export's filter", () => {
  it("refuses what the page would drop, naming the field", () => {
    expect(decisionHistoryQuerySchema.safeParse({ decision: "APPROVED", from: "", to: "2031-03-31" })).toMatchObject({
      success: true,
      data: { decision: "APPROVED", to: "2031-03-31" },
    });
    const bad = decisionHistoryQuerySchema.safeParse({ from: "2031-03-10", to: "2031-03-01" });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0].path).toEqual(["to"]);
    expect(decisionHistoryQuerySchema.safeParse({ decision: "MAYBE" }).success).toBe(false);
  });
});
