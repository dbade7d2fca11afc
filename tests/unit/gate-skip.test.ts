import { describe, expect, it } from "vitest";
import {
  describeRuleCondition,
  evaluatePermission,
  misplacedConditions,
  type PermissionRunContext,
} from "../../lib/runtime/permissions";
import type { PermissionCondition } from "../../lib/runtime/types";
import { buildRule } from "../support/contract/builders";

// Auto-approval predicates: an "allow" condition on a rule that requires approval skips the gate when it
// holds for sure — never when it cannot be checked, never over a stricter condition or weak evidence.

const refund = (args: unknown, run?: PermissionRunContext) => ({
  agent: "refunder",
  tool: "payments.refund",
  args,
  run,
  capability: "execute" as const,
  semantics: "idempotent" as const,
});
const skipUpTo = (limit: unknown, path = "amount"): PermissionCondition => ({
  path,
  op: "lte",
  value: limit,
  effect: "skip_gate",
});
const gated = (...conditions: PermissionCondition[]) => [
  buildRule({ agent: "refunder", tool: "payments.refund", effect: "require_approval", conditions }),
];

describe("skip the gate when …", () => {
  it("lets a call within the predicate through and says which predicate did", () => {
    const verdict = evaluatePermission(gated(skipUpTo(20)), refund({ amount: 12 }));
    expect(verdict.effect).toBe("allow");
    expect(verdict.gateSkippedBy).toEqual(["amount ≤ 20 (it was 12)"]);
    expect(verdict.reason).toMatch(/allow without a gate because amount ≤ 20 \(it was 12\)$/);
  });

  it("keeps the gate above the limit, at a missing or non-numeric argument, and for an unresolved reference", () => {
    for (const args of [{ amount: 21 }, {}, { amount: "12" }, { amount: null }]) {
      const verdict = evaluatePermission(gated(skipUpTo(20)), refund(args));
      expect(verdict.effect, JSON.stringify(args)).toBe("require_approval");
      expect(verdict.gateSkippedBy).toBeUndefined();
    }
    const byInput = gated(skipUpTo({ $input: "maxAutoRefund" }));
    const run = (input: unknown): PermissionRunContext => ({ input, facts: [], evidence: [], now: new Date() });
    expect(evaluatePermission(byInput, refund({ amount: 12 }, run({}))).effect).toBe("require_approval");
    expect(evaluatePermission(byInput, refund({ amount: 12 }, run({ maxAutoRefund: 15 }))).gateSkippedBy).toEqual([
      "amount ≤ the run's input maxAutoRefund (it was 12 vs 15)",
    ]);
  });

  it("needs every skip predicate to hold", () => {
    const rules = gated(skipUpTo(20), { path: "currency", op: "eq", value: "USD", effect: "skip_gate" });
    expect(evaluatePermission(rules, refund({ amount: 12, currency: "EUR" })).effect).toBe("require_approval");
    expect(evaluatePermission(rules, refund({ amount: 12, currency: "USD" })).gateSkippedBy).toEqual([
      "amount ≤ 20 (it was 12)",
      'currency = "USD" (it was "USD")',
    ]);
  });

  it("never overrides a stricter condition or weak evidence", () => {
    const denyOther = gated(skipUpTo(20), { path: "orderId", op: "neq", value: "o-1", effect: "deny" });
    expect(evaluatePermission(denyOther, refund({ amount: 5, orderId: "o-2" })).effect).toBe("deny");
    expect(evaluatePermission(denyOther, refund({ amount: 5, orderId: "o-1" })).effect).toBe("allow");
    const fresh = [
      buildRule({
        agent: "refunder",
        tool: "payments.refund",
        effect: "require_approval",
        freshEvidence: true,
        conditions: [skipUpTo(20)],
      }),
    ];
    const verdict = evaluatePermission(
      fresh,
      refund({ amount: 5 }, { input: {}, facts: [], evidence: [], now: new Date() }),
    );
    expect(verdict.effect).toBe("require_approval");
    expect(verdict.gateSkippedBy).toBeUndefined();
  });

  it("only relaxes a gate: on a deny rule it changes nothing, and the rule form refuses it there", () => {
    const deny = [
      buildRule({ agent: "refunder", tool: "payments.refund", effect: "deny", conditions: [skipUpTo(20)] }),
    ];
    expect(evaluatePermission(deny, refund({ amount: 5 })).effect).toBe("deny");
    // an "allow" condition never relaxed a rule, and still does not: only skip_gate does
    expect(
      evaluatePermission(gated({ path: "amount", op: "lte", value: 20, effect: "allow" }), refund({ amount: 5 }))
        .effect,
    ).toBe("require_approval");
    expect(misplacedConditions({ effect: "allow", conditions: [skipUpTo(20)] })).toEqual({
      "conditions.0.effect": ["a condition can skip the gate only on a rule that requires approval"],
    });
    expect(misplacedConditions({ effect: "require_approval", conditions: [skipUpTo(20)] })).toEqual({});
  });

  it("reads as words in the rule list", () => {
    expect(describeRuleCondition({ effect: "require_approval" }, skipUpTo(20))).toBe("Skip the gate when amount ≤ 20");
    expect(
      describeRuleCondition(
        { effect: "allow" },
        { path: "amountCents", op: "gt", value: 10_000, effect: "require_approval" },
      ),
    ).toBe("Require approval when amountCents > 10000");
  });
});
