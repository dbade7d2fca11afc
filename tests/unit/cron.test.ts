import { describe, expect, it } from "vitest";
import { CronError, nextTick, parseCron, ticksBetween } from "@/lib/schedules/cron";

const next = (expr: string, after: string, tz = "UTC") =>
  nextTick(parseCron(expr, tz), new Date(after))?.toISOString() ?? null;

describe("cron expressions", () => {
  it("finds the next tick of the usual forms", () => {
    expect(next("*/15 * * * *", "2026-01-01T10:07:30Z")).toBe("2026-01-01T10:15:00.000Z");
    expect(next("0 9 * * mon-fri", "2026-01-02T09:00:00Z")).toBe("2026-01-05T09:00:00.000Z"); // Friday 9:00 → Monday
    expect(next("30 2 1 * *", "2026-01-15T00:00:00Z")).toBe("2026-02-01T02:30:00.000Z");
    expect(next("0 0 29 feb *", "2026-03-01T00:00:00Z")).toBe("2028-02-29T00:00:00.000Z");
    expect(next("*/5 * * * * *", "2026-01-01T00:00:01Z")).toBe("2026-01-01T00:00:05.000Z");
    expect(next("0 12 * * 7", "2026-01-01T00:00:00Z")).toBe("2026-01-04T12:00:00.000Z"); // 7 is Sunday
    expect(next("5/20 * * * *", "2026-01-01T00:06:00Z")).toBe("2026-01-01T00:25:00.000Z");
  });

  it("treats both restricted day fields as either-or", () => {
    // The 13th, or any Friday: Friday 9 January 2026 comes first.
    expect(next("0 0 13 * fri", "2026-01-06T00:00:00Z")).toBe("2026-01-09T00:00:00.000Z");
  });

  it("reads the wall clock of the time zone, across daylight-saving changes", () => {
    expect(next("0 9 * * *", "2026-07-01T00:00:00Z", "Europe/Berlin")).toBe("2026-07-01T07:00:00.000Z");
    expect(next("0 9 * * *", "2026-01-01T00:00:00Z", "Europe/Berlin")).toBe("2026-01-01T08:00:00.000Z");
    // 29 March 2026 in Berlin: 02:30 never happens; the next one is on the 30th.
    expect(next("30 2 * * *", "2026-03-28T12:00:00Z", "Europe/Berlin")).toBe("2026-03-30T00:30:00.000Z");
    // 25 October 2026: 02:30 happens twice; it fires at the first only.
    const spec = parseCron("30 2 * * *", "Europe/Berlin");
    const ticks = ticksBetween(spec, new Date("2026-10-24T12:00:00Z"), new Date("2026-10-26T12:00:00Z"));
    expect(ticks.map((t) => t.toISOString())).toEqual(["2026-10-25T00:30:00.000Z", "2026-10-26T01:30:00.000Z"]);
  });

  it("says which part of a bad expression is wrong", () => {
    expect(() => parseCron("* * * *")).toThrow(/has 4 fields/);
    expect(() => parseCron("61 * * * *")).toThrow(/"61" is not a minute/);
    expect(() => parseCron("* * * * blah")).toThrow(CronError);
    expect(() => parseCron("10-5 * * * *")).toThrow(/runs backwards/);
    expect(() => parseCron("*/0 * * * *")).toThrow(/bad step/);
    expect(() => parseCron("* * * * *", "Mars/Olympus")).toThrow(/not an IANA time zone/);
    expect(nextTick(parseCron("0 0 30 feb *"), new Date("2026-01-01T00:00:00Z"))).toBeNull();
  });

  it("lists the ticks of a window, keeping the newest when capped", () => {
    const spec = parseCron("* * * * *");
    const ticks = ticksBetween(spec, new Date("2026-01-01T00:00:00Z"), new Date("2026-01-01T00:10:00Z"), 3);
    expect(ticks.map((t) => t.toISOString())).toEqual([
      "2026-01-01T00:08:00.000Z",
      "2026-01-01T00:09:00.000Z",
      "2026-01-01T00:10:00.000Z",
    ]);
  });
});
