import { describe, expect, it } from "vitest";
import { refundAgent } from "../../lib/agents/refund-agent";
import {
  conditionHolds,
  describeValue,
  evaluatePermission,
  permissionInputSchema,
  type PermissionRunContext,
} from "../../lib/runtime/permissions";
import { fieldErrorsFromIssues } from "../../lib/runtime/errors";
import type { Fact } from "../../lib/runtime/state";
import type { PermissionCondition } from "../../lib/runtime/types";
import { buildRule } from "../support/contract/builders";

const refund = (args: unknown, step?: string) => ({ agent: "refunder", tool: "payments.refund", step, args });
const overLimit = (effect: PermissionCondition["effect"], value = 10_000): PermissionCondition => ({
  path: "amountCents",
  op: "gt",
  value,
  effect,
});

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
    expect(evaluatePermission([buildRule({ agent: "*", tool: "*" })], refund({ amountCents: 2400 })).effect).toBe(
      "allow",
    );
  });

  it("prefers the agent-specific rule over a tool-specific one", () => {
    const rules = [
      buildRule({ agent: "*", tool: "payments.refund", step: "refund", effect: "deny" }),
      buildRule({ agent: "refunder", tool: "*", effect: "allow" }),
    ];
    const verdict = evaluatePermission(rules, refund({}, "refund"));
    expect(verdict.effect).toBe("allow");
    expect(verdict.rule).toBe(rules[1]);
  });

  it("prefers the tool-specific rule over a step-specific one", () => {
    const rules = [
      buildRule({ agent: "refunder", tool: "*", step: "refund", effect: "allow" }),
      buildRule({ agent: "refunder", tool: "payments.refund", effect: "require_approval" }),
    ];
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
    for (const conditions of [
      [approval, deny],
      [deny, approval],
    ]) {
      const rules = [buildRule({ effect: "allow", conditions })];
      expect(evaluatePermission(rules, refund({ amountCents: 50_000 })).effect).toBe("require_approval");
      expect(evaluatePermission(rules, refund({ amountCents: 500_000 })).effect).toBe("deny");
    }
  });

  it("never relaxes a rule through a condition", () => {
    const rules = [
      buildRule({
        effect: "require_approval",
        conditions: [{ path: "amountCents", op: "lt", value: 100, effect: "allow" }],
      }),
    ];
    expect(evaluatePermission(rules, refund({ amountCents: 5 })).effect).toBe("require_approval");
    expect(
      evaluatePermission(
        [buildRule({ effect: "deny", conditions: [overLimit("require_approval")] })],
        refund({ amountCents: 50_000 }),
      ).effect,
    ).toBe("deny");
  });

  it("holds a limit whose argument is missing or not a number (fails closed)", () => {
    const rules = [buildRule({ effect: "allow", conditions: [overLimit("require_approval")] })];
    expect(evaluatePermission(rules, refund({})).effect).toBe("require_approval");
    expect(evaluatePermission(rules, refund({ amountCents: "25000" })).effect).toBe("require_approval");
    expect(evaluatePermission(rules, refund({ amountCents: null })).effect).toBe("require_approval");
    expect(evaluatePermission(rules, refund(undefined)).effect).toBe("require_approval");
  });

  it("reads conditions at a dot path into nested arguments", () => {
    const rules = [
      buildRule({
        effect: "allow",
        conditions: [{ path: "payment.amount.cents", op: "gte", value: 1000, effect: "deny" }],
      }),
    ];
    expect(evaluatePermission(rules, refund({ payment: { amount: { cents: 999 } } })).effect).toBe("allow");
    expect(evaluatePermission(rules, refund({ payment: { amount: { cents: 1000 } } })).effect).toBe("deny");
  });
});

describe("conditionHolds", () => {
  const cond = (op: PermissionCondition["op"], value: unknown): PermissionCondition => ({
    path: "currency",
    op,
    value,
    effect: "deny",
  });

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
    const at = (op: PermissionCondition["op"], actual: number) =>
      conditionHolds({ path: "n", op, value: 10, effect: "deny" }, { n: actual });
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
      ...valid,
      step: "*",
      conditions: [],
      capabilities: ["read", "draft", "approve", "execute"],
      freshEvidence: false,
      approvals: 1,
      onExpire: "reject",
      queue: "default",
      ttlSeconds: null,
    });
  });

  it("accepts an escalation target as onExpire", () => {
    expect(permissionInputSchema.parse({ ...valid, onExpire: "escalate:finance-leads" }).onExpire).toBe(
      "escalate:finance-leads",
    );
  });

  it("rejects an unknown effect", () => {
    expect(Object.keys(issuesOf({ ...valid, effect: "maybe" }))).toEqual(["effect"]);
  });

  it("rejects zero approvals and more than five", () => {
    expect(Object.keys(issuesOf({ ...valid, approvals: 0 }))).toEqual(["approvals"]);
    expect(Object.keys(issuesOf({ ...valid, approvals: 6 }))).toEqual(["approvals"]);
    expect(Object.keys(issuesOf({ ...valid, approvals: 1.5 }))).toEqual(["approvals"]);
  });

  it("rejects a bad onExpire with a readable message (approve is allowed, said explicitly: tests/unit/expiry-policy.test.ts)", () => {
    for (const onExpire of ["later", "escalate:", "escalate:two words"]) {
      const issues = issuesOf({ ...valid, onExpire });
      expect(Object.keys(issues)).toEqual(["onExpire"]);
      expect(issues.onExpire[0]).toMatch(/reject|queue/);
    }
  });

  it("rejects a condition with an unknown operator or effect, naming the field", () => {
    const errors = issuesOf({
      ...valid,
      conditions: [{ path: "amountCents", op: "approx", value: 1, effect: "sometimes" }],
    });
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
    const rules = [
      buildRule({
        effect: "allow",
        conditions: [{ path: "amountCents", op: "gt", value: 10_000, effect: "require_approval" }],
      }),
    ];
    expect(
      evaluatePermission(rules, { agent: "refunder", tool: "payments.refund", args: { amountCents: Number.NaN } })
        .effect,
    ).toBe("require_approval");
  });
});

// ---- authority the engine enforces (docs/security.md)

const NOW = new Date("2026-01-10T12:00:00Z");
const fact = (key: string, kind: Fact["kind"], value: unknown, patch: Partial<Fact> = {}): Fact => ({
  id: `fact-${key}-${kind}`,
  key,
  value,
  kind,
  at: new Date(NOW.getTime() - 60_000).toISOString(),
  step: 0,
  expiresAt: null,
  source: {},
  ...patch,
});
const runWith = (patch: Partial<PermissionRunContext> = {}): PermissionRunContext => ({
  input: { orderId: "ord_1" },
  facts: [],
  evidence: [],
  now: NOW,
  ...patch,
});

describe("capabilities: a rule grants what the agent may do with the tool", () => {
  const readOnly = [buildRule({ tool: "payments.refund", effect: "allow", capabilities: ["read"] })];

  it("denies a call whose tool needs a capability the rule does not grant, saying so", () => {
    const verdict = evaluatePermission(readOnly, {
      ...refund({ amountCents: 100 }),
      capability: "execute",
      semantics: "idempotent",
    });
    expect(verdict.effect).toBe("deny");
    expect(verdict.reason).toMatch(/grants refunder only read with payments\.refund, not execute/);
  });

  it("allows a granted capability; a rule with all four (the default) behaves as before", () => {
    expect(evaluatePermission(readOnly, { ...refund({}), capability: "read" }).effect).toBe("allow");
    expect(evaluatePermission([buildRule({ effect: "allow" })], refund({})).effect).toBe("allow");
  });

  it("denies when the tool's capability is unknown and the rule does not grant every capability (fail closed)", () => {
    expect(evaluatePermission(readOnly, refund({})).effect).toBe("deny");
  });

  it("the capability check comes before conditions: a refused capability is never merely gated", () => {
    const rules = [
      buildRule({ effect: "require_approval", capabilities: ["draft"], conditions: [overLimit("require_approval")] }),
    ];
    expect(evaluatePermission(rules, { ...refund({ amountCents: 50_000 }), capability: "execute" }).effect).toBe(
      "deny",
    );
  });

  it("the input schema keeps the canonical order, drops duplicates, and refuses an empty or unknown list", () => {
    const valid = { agent: "refunder", tool: "payments.refund", effect: "allow" };
    expect(permissionInputSchema.parse({ ...valid, capabilities: ["execute", "read", "read"] }).capabilities).toEqual([
      "read",
      "execute",
    ]);
    for (const capabilities of [[], ["write"]]) {
      const parsed = permissionInputSchema.safeParse({ ...valid, capabilities });
      expect(parsed.success).toBe(false);
      expect(Object.keys(fieldErrorsFromIssues(parsed.error!.issues))[0]).toMatch(/^capabilities/);
    }
  });
});

describe("conditions bound to the run", () => {
  const sameOrder: PermissionCondition = { path: "orderId", op: "neq", value: { $input: "orderId" }, effect: "deny" };
  const customer: PermissionCondition = {
    path: "to",
    op: "neq",
    value: { $fact: "order", path: "customerEmail", tool: "orders.get" },
    effect: "deny",
  };
  const order = fact(
    "order",
    "observation",
    { id: "ord_1", customerEmail: "ann@example.com" },
    { source: { tool: "orders.get", args: { orderId: "ord_1" } } },
  );

  it("a refund of the input's order is allowed; of any other order, denied with both values in the reason", () => {
    const rules = [buildRule({ effect: "allow", conditions: [sameOrder] })];
    expect(evaluatePermission(rules, { ...refund({ orderId: "ord_1" }), run: runWith() }).effect).toBe("allow");
    const verdict = evaluatePermission(rules, { ...refund({ orderId: "ord_2" }), run: runWith() });
    expect(verdict.effect).toBe("deny");
    expect(verdict.reason).toContain(`orderId neq the run's input orderId ("ord_2" vs "ord_1")`);
  });

  it("a reference that resolves to nothing fails closed: no input field, no run, a missing argument", () => {
    expect(conditionHolds(sameOrder, { orderId: "ord_1" }, runWith({ input: {} }))).toBe(true);
    expect(conditionHolds(sameOrder, { orderId: "ord_1" })).toBe(true);
    expect(conditionHolds(sameOrder, {}, runWith())).toBe(true);
    expect(
      conditionHolds(
        { ...sameOrder, op: "eq", effect: "require_approval" },
        { orderId: "ord_9" },
        runWith({ input: { orderId: null } }),
      ),
    ).toBe(true);
  });

  it("resolves a dot path into the input, for every operator", () => {
    const run = runWith({ input: { limits: { cents: 500 }, allowed: ["EUR", "GBP"] } });
    expect(
      conditionHolds(
        { path: "amountCents", op: "gt", value: { $input: "limits.cents" }, effect: "deny" },
        { amountCents: 501 },
        run,
      ),
    ).toBe(true);
    expect(
      conditionHolds(
        { path: "amountCents", op: "gt", value: { $input: "limits.cents" }, effect: "deny" },
        { amountCents: 500 },
        run,
      ),
    ).toBe(false);
    expect(
      conditionHolds(
        { path: "currency", op: "in", value: { $input: "allowed" }, effect: "allow" },
        { currency: "GBP" },
        run,
      ),
    ).toBe(true);
  });

  it("mail only to the customer of the order read: a fact an outside system gave, from the named tool", () => {
    const rules = [buildRule({ tool: "mail.send", effect: "allow", conditions: [customer] })];
    const mail = (to: string, facts: Fact[]) =>
      evaluatePermission(rules, { agent: "refunder", tool: "mail.send", args: { to }, run: runWith({ facts }) });
    expect(mail("ann@example.com", [order]).effect).toBe("allow");
    expect(mail("eve@example.com", [order])).toMatchObject({
      effect: "deny",
      reason: expect.stringContaining("fact order.customerEmail (read by orders.get)"),
    });
    // The model cannot make the address up: an inference under the key does not count, nor a fact another tool wrote.
    expect(
      mail("eve@example.com", [order, fact("order", "inference", { customerEmail: "eve@example.com" })]).effect,
    ).toBe("deny");
    expect(
      mail("eve@example.com", [
        fact("order", "observation", { customerEmail: "eve@example.com" }, { source: { tool: "tickets.get" } }),
      ]).effect,
    ).toBe("deny");
    expect(mail("ann@example.com", []).effect).toBe("deny");
  });

  it("the input schema accepts references and refuses a malformed one; references read as words", () => {
    const valid = { agent: "refunder", tool: "payments.refund", effect: "allow" };
    expect(permissionInputSchema.parse({ ...valid, conditions: [sameOrder, customer] }).conditions).toEqual([
      sameOrder,
      customer,
    ]);
    const parsed = permissionInputSchema.safeParse({
      ...valid,
      conditions: [
        { ...sameOrder, value: { $input: "" } },
        { ...sameOrder, value: { $fakt: "order" } },
      ],
    });
    expect(Object.keys(fieldErrorsFromIssues(parsed.error!.issues)).sort()).toEqual([
      "conditions.0.value",
      "conditions.1.value",
    ]);
    expect(describeValue({ $input: "orderId" })).toBe("the run's input orderId");
    expect(describeValue(10_000)).toBe("10000");
  });
});

describe("fresh evidence: a material call resting only on weak evidence needs a person", () => {
  const rules = [buildRule({ effect: "allow", freshEvidence: true })];
  const fresh = new Date(NOW.getTime() + 60_000).toISOString();
  const call = (
    evidence: string[],
    facts: Fact[],
    traits: { capability?: "read" | "execute" | "draft"; semantics?: "pure-read" | "idempotent" } = {
      capability: "execute",
      semantics: "idempotent",
    },
  ) => evaluatePermission(rules, { ...refund({ amountCents: 100 }), ...traits, run: runWith({ evidence, facts }) });

  it("gates a call that rests only on an inference, or cites nothing, with the reason", () => {
    expect(call(["assessment"], [fact("assessment", "inference", {})])).toMatchObject({
      effect: "require_approval",
      reason: expect.stringMatching(/"assessment" \(an inference of the model\)/),
    });
    expect(call([], [])).toMatchObject({
      effect: "require_approval",
      reason: expect.stringContaining("the call cites no evidence: a person confirms it"),
    });
    expect(call(["order"], [])).toMatchObject({
      effect: "require_approval",
      reason: expect.stringContaining('"order" (no such fact)'),
    });
  });

  it("gates a call whose observations all expired, and says how long ago", () => {
    const verdict = call(
      ["order", "assessment"],
      [
        fact("order", "observation", {}, { expiresAt: new Date(NOW.getTime() - 120_000).toISOString() }),
        fact("assessment", "inference", {}),
      ],
    );
    expect(verdict.effect).toBe("require_approval");
    expect(verdict.reason).toMatch(/"order" \(an observation that expired 2 min ago\), "assessment" \(an inference/);
  });

  it("allows a call with one sound fact: a fresh observation, a receipt or a person's decision", () => {
    expect(
      call(
        ["order", "assessment"],
        [fact("order", "observation", {}, { expiresAt: fresh }), fact("assessment", "inference", {})],
      ).effect,
    ).toBe("allow");
    expect(call(["refund"], [fact("refund", "receipt", {})]).effect).toBe("allow");
    expect(call(["decision:pkt"], [fact("decision:pkt", "decision", {})]).effect).toBe("allow");
  });

  it("does not hold reads to it, and only rules that ask for it", () => {
    expect(call([], [], { capability: "read", semantics: "pure-read" }).effect).toBe("allow");
    expect(
      evaluatePermission([buildRule({ effect: "allow" })], {
        ...refund({}),
        capability: "execute",
        semantics: "idempotent",
        run: runWith(),
      }).effect,
    ).toBe("allow");
  });

  it("never relaxes: a deny stays a deny; an approval already required keeps both reasons", () => {
    expect(
      evaluatePermission([buildRule({ effect: "deny", freshEvidence: true })], {
        ...refund({}),
        capability: "execute",
        run: runWith(),
      }).effect,
    ).toBe("deny");
    const verdict = evaluatePermission(
      [buildRule({ effect: "allow", freshEvidence: true, conditions: [overLimit("require_approval")] })],
      { ...refund({ amountCents: 50_000 }), capability: "execute", semantics: "idempotent", run: runWith() },
    );
    expect(verdict.effect).toBe("require_approval");
    expect(verdict.reason).toMatch(/amountCents gt 10000; and the call cites no evidence/);
  });
});

describe("the refund agent's default permissions", () => {
  // As applyDefaultPermissions and the seed put them: parsed, then stored as a rule.
  const rules = refundAgent.defaultPermissions.map((input) => buildRule({ ...permissionInputSchema.parse(input) }));
  const order = fact(
    "order",
    "observation",
    { id: "ord_1", customerEmail: "ann@example.com" },
    {
      source: { tool: "orders.get", args: { orderId: "ord_1" } },
      expiresAt: new Date(NOW.getTime() + 60_000).toISOString(),
    },
  );
  const request = (tool: string, args: unknown, capability: "read" | "execute", evidence: string[] = ["order"]) =>
    evaluatePermission(rules, {
      agent: "refund-agent",
      tool,
      args,
      capability,
      semantics: capability === "read" ? "pure-read" : "idempotent",
      run: runWith({ facts: [order], evidence }),
    });

  it("read and refund only the input's order; read the history of and mail only that order's customer", () => {
    expect(request("orders.get", { orderId: "ord_1" }, "read").effect).toBe("allow");
    expect(request("orders.get", { orderId: "ord_2" }, "read").effect).toBe("deny");
    expect(request("orders.history", { email: "ann@example.com" }, "read").effect).toBe("allow");
    expect(request("orders.history", { email: "eve@example.com" }, "read").effect).toBe("deny");
    expect(request("payments.refund", { orderId: "ord_1", amountCents: 2_400 }, "execute").effect).toBe("allow");
    expect(request("payments.refund", { orderId: "ord_2", amountCents: 2_400 }, "execute").effect).toBe("deny");
    expect(request("payments.refund", { orderId: "ord_1", amountCents: 24_000 }, "execute").effect).toBe(
      "require_approval",
    );
    expect(request("mail.send", { to: "ann@example.com" }, "execute", ["refund"]).effect).toBe("allow");
    expect(request("mail.send", { to: "eve@example.com" }, "execute", ["refund"]).effect).toBe("deny");
  });

  it("grant no more than each tool needs, and gate a refund that rests only on the model's assessment", () => {
    expect(request("orders.get", { orderId: "ord_1" }, "execute").effect).toBe("deny");
    expect(
      request("payments.refund", { orderId: "ord_1", amountCents: 2_400 }, "execute", ["assessment"]),
    ).toMatchObject({ effect: "require_approval", reason: expect.stringContaining('"assessment" (no such fact)') });
  });
});
