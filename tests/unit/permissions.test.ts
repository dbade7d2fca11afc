import { describe, expect, it } from "vitest";
import { conditionHolds, evaluatePermission, permissionInputSchema } from "../../lib/runtime/permissions";
import { fieldErrorsFromIssues } from "../../lib/runtime/errors";
import type { PermissionCondition } from "../../lib/runtime/types";
import { buildRule } from "../support/contract/builders";

const refund = (args: unknown, step?: string) => ({ agent: "refunder", tool: "payments.refund", step, args });
const overLimit = (effect: PermissionCondition["effect"], value = 10_000): PermissionCondition => ({ path: "amountCents", op: "gt", value, effect });

describe("evaluatePermission", () => {
  it("denies when no rule exists", () => {
    const verdict = evaluatePermission([], refund({ amountCents: 2400 }));
    expect(verdict).toMatchObject({ effect: "deny", rule: null });
    expect(verdict.reason).toContain("refunder");
  });

  it("denies when only rules for other agents, tools or steps exist", () => {
    const rules = [
      buildRule({ agent: "deployer" }),
      buildRule({ tool: "mail.send" }),
      buildRule({ step: "close-out" }),
    ];
    expect(evaluatePermission(rules, refund({}, "refund")).effect).toBe("deny");
  });

  it("applies a matching wildcard rule", () => {
    expect(evaluatePermission([buildRule({ agent: "*", tool: "*" })], refund({ amountCents: 2400 })).effect).toBe("allow");
  });

  it("prefers the agent-specific rule over a tool-specific one", () => {
    const rules = [buildRule({ agent: "*", tool: "payments.refund", step: "refund", effect: "deny" }), buildRule({ agent: "refunder", tool: "*", effect: "allow" })];
    const verdict = evaluatePermission(rules, refund({}, "refund"));
    expect(verdict.effect).toBe("allow");
    expect(verdict.rule).toBe(rules[1]);
  });

  it("prefers the tool-specific rule over a step-specific one", () => {
    const rules = [buildRule({ agent: "refunder", tool: "*", step: "refund", effect: "allow" }), buildRule({ agent: "refunder", tool: "payments.refund", effect: "require_approval" })];
    expect(evaluatePermission(rules, refund({}, "refund")).effect).toBe("require_approval");
  });

  it("prefers the step-specific rule when agent and tool tie", () => {
    const rules = [buildRule({ effect: "allow" }), buildRule({ step: "refund", effect: "deny" })];
    expect(evaluatePermission(rules, refund({}, "refund")).effect).toBe("deny");
    // …and the step rule does not apply at another step
    expect(evaluatePermission(rules, refund({}, "look-up")).effect).toBe("allow");
  });

  it("picks the most specific rule whatever order the rules come in", () => {
    const general = buildRule({ agent: "*", tool: "*", effect: "allow" });
    const exact = buildRule({ effect: "deny" });
    expect(evaluatePermission([general, exact], refund({ amountCents: 2400 })).rule).toBe(exact);
    expect(evaluatePermission([exact, general], refund({ amountCents: 2400 })).rule).toBe(exact);
  });

  it("escalates an allow to require_approval when an amount is over its limit", () => {
    const rules = [buildRule({ effect: "allow", conditions: [overLimit("require_approval")] })];
    expect(evaluatePermission(rules, refund({ amountCents: 2400 })).effect).toBe("allow");
    const verdict = evaluatePermission(rules, refund({ amountCents: 25_000 }));
    expect(verdict.effect).toBe("require_approval");
    expect(verdict.reason).toContain("amountCents gt 10000");
  });

  it("lets a deny condition win over a require_approval condition, in either order", () => {
    const approval = overLimit("require_approval", 10_000);
    const deny = overLimit("deny", 100_000);
    for (const conditions of [[approval, deny], [deny, approval]]) {
      const rules = [buildRule({ effect: "allow", conditions })];
      expect(evaluatePermission(rules, refund({ amountCents: 50_000 })).effect).toBe("require_approval");
      expect(evaluatePermission(rules, refund({ amountCents: 500_000 })).effect).toBe("deny");
    }
  });

  it("never relaxes a rule through a condition", () => {
    const rules = [buildRule({ effect: "require_approval", conditions: [{ path: "amountCents", op: "lt", value: 100, effect: "allow" }] })];
    expect(evaluatePermission(rules, refund({ amountCents: 5 })).effect).toBe("require_approval");
    expect(evaluatePermission([buildRule({ effect: "deny", conditions: [overLimit("require_approval")] })], refund({ amountCents: 50_000 })).effect).toBe("deny");
  });

  it("holds a limit whose argument is missing or not a number (fails closed)", () => {
    const rules = [buildRule({ effect: "allow", conditions: [overLimit("require_approval")] })];
    expect(evaluatePermission(rules, refund({})).effect).toBe("require_approval");
    expect(evaluatePermission(rules, refund({ amountCents: "25000" })).effect).toBe("require_approval");
    expect(evaluatePermission(rules, refund({ amountCents: null })).effect).toBe("require_approval");
    expect(evaluatePermission(rules, refund(undefined)).effect).toBe("require_approval");
  });

  it("reads conditions at a dot path into nested arguments", () => {
    const rules = [buildRule({ effect: "allow", conditions: [{ path: "payment.amount.cents", op: "gte", value: 1000, effect: "deny" }] })];
    expect(evaluatePermission(rules, refund({ payment: { amount: { cents: 999 } } })).effect).toBe("allow");
    expect(evaluatePermission(rules, refund({ payment: { amount: { cents: 1000 } } })).effect).toBe("deny");
  });
});

describe("conditionHolds", () => {
  const cond = (op: PermissionCondition["op"], value: unknown): PermissionCondition => ({ path: "currency", op, value, effect: "deny" });

  it("eq holds only on strict equality", () => {
    expect(conditionHolds(cond("eq", "EUR"), { currency: "EUR" })).toBe(true);
    expect(conditionHolds(cond("eq", "EUR"), { currency: "USD" })).toBe(false);
    expect(conditionHolds(cond("eq", 1), { currency: "1" })).toBe(false);
  });

  it("neq holds when the value differs", () => {
    expect(conditionHolds(cond("neq", "EUR"), { currency: "USD" })).toBe(true);
    expect(conditionHolds(cond("neq", "EUR"), { currency: "EUR" })).toBe(false);
  });

  it("in holds when the value is listed, and never for a non-list", () => {
    expect(conditionHolds(cond("in", ["EUR", "GBP"]), { currency: "GBP" })).toBe(true);
    expect(conditionHolds(cond("in", ["EUR", "GBP"]), { currency: "USD" })).toBe(false);
    expect(conditionHolds(cond("in", "EUR"), { currency: "EUR" })).toBe(false);
  });

  it("compares numbers with gt, gte, lt and lte at the boundary", () => {
    const at = (op: PermissionCondition["op"], actual: number) => conditionHolds({ path: "n", op, value: 10, effect: "deny" }, { n: actual });
    expect([at("gt", 10), at("gt", 11)]).toEqual([false, true]);
    expect([at("gte", 9), at("gte", 10)]).toEqual([false, true]);
    expect([at("lt", 10), at("lt", 9)]).toEqual([false, true]);
    expect([at("lte", 11), at("lte", 10)]).toEqual([false, true]);
  });

  it("a numeric limit that is not a number itself holds (fails closed)", () => {
    expect(conditionHolds({ path: "n", op: "lt", value: "10", effect: "deny" }, { n: 50 })).toBe(true);
  });
});

describe("permissionInputSchema", () => {
  const valid = { agent: "refunder", tool: "payments.refund", effect: "allow" };
  const issuesOf = (input: unknown) => {
    const parsed = permissionInputSchema.safeParse(input);
    expect(parsed.success).toBe(false);
    return fieldErrorsFromIssues(parsed.error!.issues);
  };

  it("fills the defaults for a minimal rule", () => {
    expect(permissionInputSchema.parse(valid)).toEqual({
      ...valid, step: "*", conditions: [], approvals: 1, onExpire: "reject", queue: "default", ttlSeconds: null,
    });
  });

  it("accepts an escalation target as onExpire", () => {
    expect(permissionInputSchema.parse({ ...valid, onExpire: "escalate:finance-leads" }).onExpire).toBe("escalate:finance-leads");
  });

  it("rejects an unknown effect", () => {
    expect(Object.keys(issuesOf({ ...valid, effect: "maybe" }))).toEqual(["effect"]);
  });

  it("rejects zero approvals and more than five", () => {
    expect(Object.keys(issuesOf({ ...valid, approvals: 0 }))).toEqual(["approvals"]);
    expect(Object.keys(issuesOf({ ...valid, approvals: 6 }))).toEqual(["approvals"]);
    expect(Object.keys(issuesOf({ ...valid, approvals: 1.5 }))).toEqual(["approvals"]);
  });

  it("rejects a bad onExpire with a readable message", () => {
    for (const onExpire of ["approve", "escalate:", "escalate:two words"]) {
      expect(issuesOf({ ...valid, onExpire })).toEqual({ onExpire: ['use "reject" or "escalate:<queue>"'] });
    }
  });

  it("rejects a condition with an unknown operator or effect, naming the field", () => {
    const errors = issuesOf({ ...valid, conditions: [{ path: "amountCents", op: "approx", value: 1, effect: "sometimes" }] });
    expect(Object.keys(errors).sort()).toEqual(["conditions.0.effect", "conditions.0.op"]);
  });

  it("rejects empty agent and tool names and a non-positive ttl", () => {
    const errors = issuesOf({ agent: "", tool: "", effect: "allow", ttlSeconds: 0 });
    expect(Object.keys(errors).sort()).toEqual(["agent", "tool", "ttlSeconds"]);
    for (const messages of Object.values(errors)) expect(messages[0]).toMatch(/\w/);
  });
});

describe("evaluatePermission: fail closed", () => {
  // `typeof NaN === "number"` and every comparison with NaN is false: without a check, an amount
  // limit would not hold and an over-limit action would simply be allowed.
  it("a limit whose argument is NaN holds (it cannot be checked)", () => {
    const rules = [buildRule({ effect: "allow", conditions: [{ path: "amountCents", op: "gt", value: 10_000, effect: "require_approval" }] })];
    expect(evaluatePermission(rules, { agent: "refunder", tool: "payments.refund", args: { amountCents: Number.NaN } }).effect).toBe("require_approval");
  });
});
