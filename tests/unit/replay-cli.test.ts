import { describe, expect, it } from "vitest";
import { parseAllowList, parseSince } from "../../lib/replay/cli";

describe("replay command line", () => {
  const now = new Date("2026-12-05T12:00:00Z");
  it("reads --since as a duration before now or as a date, and refuses anything else", () => {
    expect(parseSince("7d", now).toISOString()).toBe("2026-11-28T12:00:00.000Z");
    expect(parseSince("12h", now).toISOString()).toBe("2026-12-05T00:00:00.000Z");
    expect(parseSince("2026-12-01", now).toISOString()).toBe("2026-12-01T00:00:00.000Z");
    expect(() => parseSince("last week", now)).toThrow(/duration/);
  });
  it("reads the allowed list: a run id per line, comments after it and on lines of their own", () => {
    expect(parseAllowList("# meant to change\nrun_a  the new threshold\n\n  run_b\n")).toEqual(["run_a", "run_b"]);
  });
});
