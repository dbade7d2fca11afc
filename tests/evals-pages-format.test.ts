import { describe, expect, it } from "vitest";
import {
  eventCategory,
  formatBudget,
  formatMs,
  formatOffset,
  formatScore,
  formatScoreDelta,
  formatUsd,
  humanShare,
  judgeScore,
  summarizeExpectations,
} from "../components/evals/format";
import { expectSchema } from "../lib/evals/spec";

// The Evals pages' formatting: what people read in the tables, the eval-run page and the case page.

describe("scores", () => {
  it("shows a 0..1 score as a percentage with one decimal at most, and a missing one as a dash", () => {
    expect(formatScore(1)).toBe("100%");
    expect(formatScore(0)).toBe("0%");
    expect(formatScore(0.9533)).toBe("95.3%");
    expect(formatScore(0.5)).toBe("50%");
    expect(formatScore(null)).toBe("—");
    expect(formatScore(undefined)).toBe("—");
    expect(formatScore(Number.NaN)).toBe("—");
  });

  it("signs a change in percentage points", () => {
    expect(formatScoreDelta(0.9, 0.95)).toBe("+5 pt");
    expect(formatScoreDelta(1, 0.975)).toBe("−2.5 pt");
    expect(formatScoreDelta(0.8, 0.8)).toBe("±0 pt");
    expect(formatScoreDelta(null, 0.8)).toBe("n/a");
    expect(formatScoreDelta(null, null)).toBe("");
  });

  it("judges a score against its threshold; no score or no threshold is not a failure", () => {
    expect(judgeScore(0.95, 0.95)).toBe("pass");
    expect(judgeScore(0.94999999999, 0.95)).toBe("pass"); // float noise from averaging
    expect(judgeScore(0.9, 0.95)).toBe("fail");
    expect(judgeScore(null, 1)).toBe("n/a");
    expect(judgeScore(0.5, undefined)).toBe("n/a");
  });
});

describe("figures", () => {
  it("formats durations in the unit a person reads", () => {
    expect(formatMs(0)).toBe("0 ms");
    expect(formatMs(840.4)).toBe("840 ms");
    expect(formatMs(12_449)).toBe("12.4 s");
    expect(formatMs(1_000)).toBe("1.0 s");
    expect(formatMs(185_000)).toBe("3 min 05 s");
    expect(formatMs(7_260_000)).toBe("2 h 01 min");
    expect(formatMs(null)).toBe("—");
    expect(formatMs(-5)).toBe("0 ms");
  });

  it("formats dollars with cents, and fractions of a cent with four decimals", () => {
    expect(formatUsd(0)).toBe("$0");
    expect(formatUsd(1.5)).toBe("$1.50");
    expect(formatUsd(0.0042)).toBe("$0.0042");
    expect(formatUsd(undefined)).toBe("—");
  });

  it("splits wall time into the people's share and the machine's", () => {
    expect(humanShare(3_000, 1_000)).toBe(0.75);
    expect(humanShare(0, 0)).toBe(0);
  });

  it("formats budgets by their unit", () => {
    expect(formatBudget("costUsd", 0.05)).toBe("$0.05");
    expect(formatBudget("machineMs", 2_000)).toBe("2.0 s");
    expect(formatBudget("steps", 12)).toBe("12");
  });
});

describe("trace timeline", () => {
  it("takes an event's category from its type and its time from the first event", () => {
    expect(eventCategory("gate.requested")).toBe("gate");
    expect(eventCategory("effect.unknown_outcome")).toBe("effect");
    expect(eventCategory("weird")).toBe("weird");
    expect(formatOffset("2026-01-01T00:00:01.250Z", "2026-01-01T00:00:00.000Z")).toBe("+1.3 s");
    expect(formatOffset("2026-01-01T00:00:00.040Z", "2026-01-01T00:00:00.000Z")).toBe("+40 ms");
  });
});

describe("expectations summary", () => {
  it("says in a few words what a case expects", () => {
    const expectations = expectSchema.parse({
      status: ["COMPLETED", "WAITING_APPROVAL"],
      output: [{ path: "output.refunded", op: "eq", value: true }],
      state: [{ path: "ledger.payments.refund", op: "eq", value: 1 }],
      tools: { must: ["orders.get", "payments.refund"], mustNot: ["deploys.run_migration"] },
      approvals: ["payments.refund"],
      never: [{ system: "mail" }, { system: "payments", action: "refund" }],
      budgets: { steps: 12, costUsd: 0.05 },
    });
    expect(summarizeExpectations(expectations)).toEqual([
      "ends COMPLETED or WAITING_APPROVAL",
      "2 checks",
      "uses orders.get, payments.refund",
      "never uses deploys.run_migration",
      "approval for payments.refund",
      "forbids mail, payments.refund",
      "budgets: steps, costUsd",
    ]);
    expect(summarizeExpectations(expectSchema.parse({ status: "COMPLETED" }))).toEqual(["ends COMPLETED"]);
  });
});

describe("code versions", () => {
  it("shortens a git sha to 12 characters and keeps the -dirty mark", async () => {
    const { shortCode } = await import("../components/evals/format");
    expect(shortCode("99bab36bcc8361bbbf168dfb2995c4aacbcf5396")).toBe("99bab36bcc83");
    expect(shortCode("99bab36bcc8361bbbf168dfb2995c4aacbcf5396-dirty")).toBe("99bab36bcc83-dirty");
    expect(shortCode("local")).toBe("local");
  });
});
