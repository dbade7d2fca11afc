import { describe, expect, it } from "vitest";
import { describeCountdown, describeOnExpire } from "../../lib/inbox/countdown";

// The inbox's deadline words: a live countdown, then "expired", with what the expiry policy does.

describe("describeCountdown", () => {
  const now = new Date("2026-12-04T12:00:00.000Z");
  const after = (ms: number) => new Date(now.getTime() + ms);

  it("names the two largest units, rounded down", () => {
    expect(describeCountdown(after(72 * 60_000 + 30_000), now)).toBe("expires in 1 h 12 min");
    expect(describeCountdown(after(2 * 86_400_000 + 3 * 3_600_000 + 59 * 60_000), now)).toBe("expires in 2 d 3 h");
    expect(describeCountdown(after(2 * 86_400_000 + 5 * 60_000), now)).toBe("expires in 2 d");
    expect(describeCountdown(after(5 * 60_000 + 3_000), now)).toBe("expires in 5 min 3 s");
    expect(describeCountdown(after(45_500), now)).toBe("expires in 45 s");
    expect(describeCountdown(after(400), now)).toBe("expires in 1 s");
  });

  it("says expired at and after the deadline", () => {
    expect(describeCountdown(now, now)).toBe("expired");
    expect(describeCountdown(after(-5_000).toISOString(), now)).toBe("expired");
  });
});

describe("describeOnExpire", () => {
  it("says what happens at expiry", () => {
    expect(describeOnExpire("reject")).toBe("then it is rejected");
    expect(describeOnExpire("approve")).toBe("then it is approved");
    expect(describeOnExpire("escalate:oncall")).toBe("then it escalates to oncall");
  });
});
