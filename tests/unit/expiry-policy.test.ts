import { describe, expect, it } from "vitest";
import {
  escalationQueues,
  expiryPolicyOf,
  formatDuration,
  formatExpiryPolicy,
  parseDurationText,
  parseExpiryPolicy,
} from "../../lib/runtime/expiry";
import { permissionInputSchema } from "../../lib/runtime/permissions";

// The one parser of a packet's expiry policy (lib/runtime/expiry.ts), shared by permission rules and open gates.

describe("expiry policy", () => {
  it("reads the values stored before chains existed as they were: reject, escalate:<queue>", () => {
    expect(parseExpiryPolicy("reject")).toEqual({ ok: true, policy: { kind: "reject" } });
    expect(parseExpiryPolicy("escalate:finance-leads")).toEqual({
      ok: true,
      policy: { kind: "escalate", chain: [{ queue: "finance-leads", windowMs: null }] },
    });
  });

  it("reads an explicit approve and a chain of escalations, each with its own deadline", () => {
    expect(parseExpiryPolicy("approve")).toEqual({ ok: true, policy: { kind: "approve" } });
    expect(parseExpiryPolicy("escalate:leads@2h,cfo@1d")).toEqual({
      ok: true,
      policy: {
        kind: "escalate",
        chain: [
          { queue: "leads", windowMs: 2 * 3_600_000 },
          { queue: "cfo", windowMs: 86_400_000 },
        ],
      },
    });
    expect(parseExpiryPolicy(" escalate:a@90s,b ")).toEqual({
      ok: true,
      policy: {
        kind: "escalate",
        chain: [
          { queue: "a", windowMs: 90_000 },
          { queue: "b", windowMs: null },
        ],
      },
    });
  });

  it.each([
    "",
    "later",
    "approve!",
    "escalate:",
    "escalate:a@",
    "escalate:a@2 weeks",
    "escalate:a@0s",
    "escalate:a b",
    "escalate:a@1h@2h",
    "escalate:a,,b",
    "escalate:a,b,c,d,e,f",
    "Reject",
  ])("refuses %j with a reason", (text) => {
    const parsed = parseExpiryPolicy(text);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.reason.length).toBeGreaterThan(10);
  });

  it("round-trips through its text, the form the onExpire column keeps", () => {
    for (const text of ["reject", "approve", "escalate:leads", "escalate:leads@2h,cfo@1d", "escalate:a@90s,b,c@7d"]) {
      const parsed = parseExpiryPolicy(text);
      expect(parsed.ok).toBe(true);
      if (parsed.ok) expect(formatExpiryPolicy(parsed.policy)).toBe(text);
    }
    // The rest of a chain after its last step is a rejection.
    expect(formatExpiryPolicy({ kind: "escalate", chain: [] })).toBe("reject");
  });

  it("treats a stored value that does not parse as reject, never as an approval", () => {
    expect(expiryPolicyOf("approve-ish")).toEqual({ kind: "reject" });
    expect(escalationQueues(expiryPolicyOf("escalate:leads@2h,cfo@1d"))).toEqual(["leads", "cfo"]);
    expect(escalationQueues(expiryPolicyOf("approve"))).toEqual([]);
  });

  it("reads and writes durations", () => {
    expect(parseDurationText("90s")).toBe(90_000);
    expect(parseDurationText("30m")).toBe(1_800_000);
    expect(parseDurationText("24h")).toBe(86_400_000);
    expect(parseDurationText("7d")).toBe(7 * 86_400_000);
    expect(parseDurationText("1.5h")).toBeNull();
    expect(parseDurationText("0s")).toBeNull();
    expect(formatDuration(7_200_000)).toBe("2h");
    expect(formatDuration(90_000)).toBe("90s");
  });

  it("is what a permission rule's onExpire is checked with", () => {
    const rule = { agent: "a", tool: "t", effect: "require_approval" as const };
    expect(permissionInputSchema.parse({ ...rule, onExpire: "escalate:leads@2h,cfo@1d" }).onExpire).toBe(
      "escalate:leads@2h,cfo@1d",
    );
    expect(permissionInputSchema.parse({ ...rule, onExpire: "approve" }).onExpire).toBe("approve");
    expect(permissionInputSchema.parse(rule).onExpire).toBe("reject"); // never approve by default
    const refused = permissionInputSchema.safeParse({ ...rule, onExpire: "escalate:leads@soon" });
    expect(refused.success).toBe(false);
    if (!refused.success) expect(refused.error.issues[0].path).toEqual(["onExpire"]);
  });
});
