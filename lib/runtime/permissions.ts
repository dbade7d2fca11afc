import { z } from "zod";
import { EXPIRY_POLICY_HINT, formatAge, parseExpiryPolicy } from "./expiry";
import { latestFact, type Fact } from "./state";
import {
  CAPABILITIES,
  CONDITION_EFFECTS,
  PERMISSION_EFFECTS,
  type ApprovalTerms,
  type Capability,
  type EffectSemantics,
  type PermissionCondition,
  type PermissionEffect,
  type PermissionRule,
  type PermissionValueRef,
} from "./types";

// Least authority, checked at the moment of acting (docs/design.md). Pure: the engine reads the rules
// before every action — also after a resume — so a change made while a run was paused counts
// (permission-check.ts caches them per permission epoch). A rule grants capabilities (read, draft,
// approve, execute), its conditions may bind arguments to the run's input or facts, and it may hold a
// material call to fresh evidence.

const valueRefSchema = z.union([
  z.object({ $input: z.string().min(1, "name a path into the run's input") }).strict(),
  z
    .object({
      $fact: z.string().min(1, "name a fact key"),
      path: z.string().min(1).optional(),
      tool: z.string().min(1).optional(),
    })
    .strict(),
]);

/** A constant, or a reference to the run (an object with a "$"-key must be a well-formed one). */
const conditionValueSchema = z.unknown().superRefine((value, ctx) => {
  if (!value || typeof value !== "object" || Array.isArray(value) || !Object.keys(value).some((k) => k.startsWith("$")))
    return;
  if (!valueRefSchema.safeParse(value).success)
    ctx.addIssue({
      code: "custom",
      message: 'a reference is { "$input": "<path>" } or { "$fact": "<key>", "path"?: "<path>", "tool"?: "<tool>" }',
    });
});

/** An `onExpire` text (expiry.ts), checked by the one parser rules and gates share. */
export function expiryPolicySchema() {
  return z
    .string()
    .trim()
    .superRefine((value, ctx) => {
      const parsed = parseExpiryPolicy(value);
      if (!parsed.ok) ctx.addIssue({ code: "custom", message: parsed.reason });
    })
    .describe(EXPIRY_POLICY_HINT);
}

export const permissionConditionSchema = z.object({
  path: z.string().min(1),
  op: z.enum(["gt", "gte", "lt", "lte", "eq", "neq", "in"]),
  value: conditionValueSchema,
  effect: z.enum(CONDITION_EFFECTS),
});

export const permissionInputSchema = z.object({
  agent: z.string().min(1),
  tool: z.string().min(1),
  step: z.string().min(1).default("*"),
  effect: z.enum(PERMISSION_EFFECTS),
  conditions: z.array(permissionConditionSchema).default([]),
  capabilities: z
    .array(z.enum(CAPABILITIES))
    .min(1, "grant at least one capability (to take the tool away, set the effect to deny)")
    .transform((list) => CAPABILITIES.filter((c) => list.includes(c)))
    .default([...CAPABILITIES]),
  freshEvidence: z.boolean().default(false),
  approvals: z.number().int().min(1).max(5).default(1),
  onExpire: expiryPolicySchema().default("reject"),
  queue: z.string().min(1).default("default"),
  ttlSeconds: z.number().int().positive().nullable().default(null),
});

/** A rule's conditions that its effect makes meaningless (a skip-the-gate condition on a rule that asks no one), as field errors. */
export function misplacedConditions(rule: {
  effect: PermissionEffect;
  conditions: Array<Pick<PermissionCondition, "effect">>;
}): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  rule.conditions.forEach((condition, index) => {
    if (condition.effect === "skip_gate" && rule.effect !== "require_approval")
      errors[`conditions.${index}.effect`] = ["a condition can skip the gate only on a rule that requires approval"];
  });
  return errors;
}
export type PermissionInput = z.input<typeof permissionInputSchema>;

export type PermissionVerdict = {
  effect: PermissionEffect;
  rule: PermissionRule | null;
  /** Human-readable why: which rule, which condition. */
  reason: string;
  /** Terms other than the rule's (a caller-executed tool's, merged with the rule's): see approvalTerms. */
  terms?: ApprovalTerms;
  /** Set when the rule requires approval and its skip predicates let the call through: each, with the value it had. */
  gateSkippedBy?: string[];
};

/** Who decides and how long they have: the verdict's own terms, else its rule's, else one approver in "default". */
export function approvalTerms(verdict: PermissionVerdict): ApprovalTerms {
  if (verdict.terms) return verdict.terms;
  const rule = verdict.rule;
  return {
    queue: rule?.queue ?? "default",
    approvals: rule?.approvals ?? 1,
    ttlSeconds: rule?.ttlSeconds ?? null,
    onExpire: rule?.onExpire ?? "reject",
  };
}

/**
 * A caller-executed tool (an open gate's action) always asks a person: Tether runs nothing, so a person's
 * approval is the whole authority it gives. A rule that matches can still deny it (an admin closes a tool
 * to gates) or ask for more approvers; the caller's queue and expiry apply unless it left them unset.
 */
export function externalVerdict(verdict: PermissionVerdict, tool: string, terms: ApprovalTerms): PermissionVerdict {
  if (verdict.effect === "deny" && verdict.rule) return verdict;
  const rule = verdict.rule;
  const merged: ApprovalTerms = {
    queue: terms.queue !== "default" ? terms.queue : (rule?.queue ?? "default"),
    approvals: Math.max(terms.approvals, rule?.approvals ?? 1),
    ttlSeconds: terms.ttlSeconds ?? rule?.ttlSeconds ?? null,
    onExpire: terms.onExpire,
  };
  const why = `the caller asks a person before it runs ${tool}`;
  return { effect: "require_approval", rule, reason: rule ? `${verdict.reason}; ${why}` : why, terms: merged };
}

const RESTRICTIVENESS: Record<PermissionEffect, number> = { allow: 0, require_approval: 1, deny: 2 };

/** The run an action is taken in: its input and facts (references resolve against them), what it cites, the time. */
export type PermissionRunContext = { input: unknown; facts: readonly Fact[]; evidence: readonly string[]; now: Date };

/** What is about to happen, as the rules see it. */
export type PermissionRequest = {
  agent: string;
  tool: string;
  step?: string;
  args: unknown;
  /** The tool's capability and effect semantics (ToolDefinition). Unknown: only a rule granting every capability allows it. */
  capability?: Capability;
  semantics?: EffectSemantics;
  /** Unknown: every reference fails to resolve and no evidence is sound (fail closed). */
  run?: PermissionRunContext;
};

/** The most specific rule wins (agent, then tool, then step); no rule at all means deny. */
export function evaluatePermission(rules: PermissionRule[], action: PermissionRequest): PermissionVerdict {
  const matching = rules.filter(
    (r) =>
      (r.agent === "*" || r.agent === action.agent) &&
      (r.tool === "*" || r.tool === action.tool) &&
      (r.step === "*" || r.step === action.step),
  );
  if (matching.length === 0)
    return { effect: "deny", rule: null, reason: `no permission grants ${action.agent} the tool ${action.tool}` };
  const specificity = (r: PermissionRule) =>
    (r.agent !== "*" ? 4 : 0) + (r.tool !== "*" ? 2 : 0) + (r.step !== "*" ? 1 : 0);
  const rule = matching.sort((a, b) => specificity(b) - specificity(a))[0];
  const name = `rule ${describeRule(rule)} v${rule.version}`;

  const refused = capabilityRefused(rule, action);
  if (refused) return { effect: "deny", rule, reason: `${name}: deny because ${refused}` };

  let effect = rule.effect;
  let reason = `${name}: ${rule.effect}`;
  let isRaised = false; // a condition made the rule stricter: no skip predicate undoes that
  for (const condition of rule.conditions) {
    if (condition.effect === "skip_gate") continue;
    if (
      conditionHolds(condition, action.args, action.run) &&
      RESTRICTIVENESS[condition.effect] > RESTRICTIVENESS[effect]
    ) {
      isRaised = true;
      effect = condition.effect;
      reason = `${name}: ${condition.effect} because ${describeCondition(condition, action.args, action.run)}`;
    }
  }
  // The rule's own gate (not one a condition raised) is skipped when every skip predicate holds for sure.
  let skippedBy: string[] | undefined;
  const skips = rule.conditions.filter((c) => isGateSkip(rule, c));
  if (
    effect === "require_approval" &&
    !isRaised &&
    skips.length > 0 &&
    skips.every((c) => conditionSurelyHolds(c, action.args, action.run))
  ) {
    skippedBy = skips.map((c) => describePredicate(c, action.args, action.run));
    effect = "allow";
    reason = `${name}: allow without a gate because ${skippedBy.join(" and ")}`;
  }
  if (effect !== "deny" && rule.freshEvidence && isMaterial(action)) {
    const weak = weakEvidence(action.run);
    if (weak) {
      const why = `${weak}: a person confirms it (or the agent reads the evidence again)`;
      reason = effect === "allow" ? `${name}: require_approval because ${why}` : `${reason}; and ${why}`;
      effect = "require_approval";
      skippedBy = undefined;
    }
  }
  return { effect, rule, reason, ...(skippedBy ? { gateSkippedBy: skippedBy } : {}) };
}

/**
 * An auto-approval predicate: a "skip_gate" condition of a rule that requires approval ("skip the gate when
 * amount ≤ 20"). Every other condition only makes its rule stricter ("allow" relaxes nothing, as it always did).
 * Skip predicates are read together (all must hold), after the stricter conditions: a deny or a gate a
 * condition raised always wins, and so does weak evidence under freshEvidence.
 */
export function isGateSkip(
  rule: Pick<PermissionRule, "effect">,
  condition: Pick<PermissionCondition, "effect">,
): boolean {
  return rule.effect === "require_approval" && condition.effect === "skip_gate";
}

/**
 * Does a skip predicate hold, checked strictly: the opposite of conditionHolds's fail-closed reading, a
 * reference that names nothing or an argument that is missing (or not a number for a limit) keeps the gate.
 */
export function conditionSurelyHolds(
  condition: PermissionCondition,
  args: unknown,
  run?: PermissionRunContext,
): boolean {
  const actual = at(args, condition.path);
  const reference = resolveValue(condition.value, run);
  if (!reference.isResolved || actual === undefined || actual === null) return false;
  if (
    ["gt", "gte", "lt", "lte"].includes(condition.op) &&
    (typeof actual !== "number" ||
      typeof reference.value !== "number" ||
      Number.isNaN(actual) ||
      Number.isNaN(reference.value))
  )
    return false;
  return conditionHolds(condition, args, run);
}

export const OP_SYMBOL: Record<PermissionCondition["op"], string> = {
  gt: ">",
  gte: "≥",
  lt: "<",
  lte: "≤",
  eq: "=",
  neq: "≠",
  in: "in",
};

/** "amount ≤ 20", and with the call's arguments "amount ≤ 20 (it was 12)": what people read in a rule and a trace. */
export function describePredicate(condition: PermissionCondition, args?: unknown, run?: PermissionRunContext): string {
  const text = `${condition.path} ${OP_SYMBOL[condition.op]} ${describeValue(condition.value)}`;
  if (args === undefined) return text;
  const expected = isValueRef(condition.value) ? resolveValue(condition.value, run) : null;
  return `${text} (it was ${JSON.stringify(at(args, condition.path)) ?? "missing"}${expected?.isResolved ? ` vs ${JSON.stringify(expected.value)}` : ""})`;
}

/** A rule's conditions in words, as the rule list shows them: "Skip the gate when amount ≤ 20", "Deny when …". */
export function describeRuleCondition(rule: Pick<PermissionRule, "effect">, condition: PermissionCondition): string {
  const when = describePredicate(condition);
  if (isGateSkip(rule, condition)) return `Skip the gate when ${when}`;
  if (condition.effect === "skip_gate") return `Skip the gate when ${when} (no effect: the rule asks no one)`;
  if (condition.effect === "allow") return `Allow when ${when} (no effect: a condition only makes its rule stricter)`;
  return `${condition.effect === "deny" ? "Deny" : "Require approval"} when ${when}`;
}

export function describeRule(rule: Pick<PermissionRule, "agent" | "tool" | "step">): string {
  return `${rule.agent}/${rule.tool}${rule.step === "*" ? "" : `@${rule.step}`}`;
}

/** Why the rule does not grant what the tool does; null when it does. Rules read before capabilities existed grant all. */
function capabilityRefused(rule: PermissionRule, action: PermissionRequest): string | null {
  const granted = rule.capabilities ?? CAPABILITIES;
  if (CAPABILITIES.every((c) => granted.includes(c))) return null;
  if (!action.capability)
    return `the rule grants only ${granted.join(", ")} with ${action.tool}, whose capability is unknown`;
  if (granted.includes(action.capability)) return null;
  return `the rule grants ${action.agent} only ${granted.join(", ")} with ${action.tool}, not ${action.capability}`;
}

/** A call that changes something: neither a read capability nor a pure read. Unknown traits count as material. */
export function isMaterial(action: Pick<PermissionRequest, "capability" | "semantics">): boolean {
  return action.capability !== "read" && action.semantics !== "pure-read";
}

/**
 * What is wrong with the evidence when none of it can be relied on — every cited fact is an inference,
 * expired, or missing, or none is cited — as words for the reason; null when some of it is sound
 * (a decision, a receipt, an observation still fresh).
 */
export function weakEvidence(run: PermissionRunContext | undefined): string | null {
  const keys = [...new Set(run?.evidence ?? [])];
  if (!run || keys.length === 0) return "the call cites no evidence";
  const problems: string[] = [];
  for (const key of keys) {
    const fact = latestFact(run, key);
    if (!fact) problems.push(`"${key}" (no such fact)`);
    else if (fact.expiresAt && Date.parse(fact.expiresAt) <= run.now.getTime())
      problems.push(
        `"${key}" (a${fact.kind === "observation" ? "n observation" : ` ${fact.kind}`} that expired ${formatAge(run.now.getTime() - Date.parse(fact.expiresAt))} ago)`,
      );
    else if (fact.kind === "inference") problems.push(`"${key}" (an inference of the model)`);
    else return null;
  }
  return `the call rests only on weak evidence — ${problems.join(", ")}`;
}

const at = (value: unknown, path: string): unknown =>
  path
    .split(".")
    .reduce<unknown>((v, k) => (v && typeof v === "object" ? (v as Record<string, unknown>)[k] : undefined), value);

export function isValueRef(value: unknown): value is PermissionValueRef {
  // Every condition of every check asks this: a constant is answered without zod.
  if (!value || typeof value !== "object" || !("$input" in value || "$fact" in value)) return false;
  return valueRefSchema.safeParse(value).success;
}

/** The value a condition compares with: a constant as is, a reference resolved against the run (undefined: unresolved). */
export function resolveValue(
  value: unknown,
  run: PermissionRunContext | undefined,
): { value: unknown; isResolved: boolean } {
  if (!isValueRef(value)) return { value, isResolved: true };
  if (!run) return { value: undefined, isResolved: false };
  let resolved: unknown;
  if ("$input" in value) {
    resolved = at(run.input, value.$input);
  } else {
    const fact = latestFact(run, value.$fact);
    // Only what an outside system said (a read's observation, an effect's receipt) — never what the model inferred.
    const isAuthoritative =
      fact &&
      (fact.kind === "observation" || fact.kind === "receipt") &&
      (!value.tool || fact.source.tool === value.tool);
    resolved = isAuthoritative ? (value.path ? at(fact.value, value.path) : fact.value) : undefined;
  }
  return { value: resolved, isResolved: resolved !== undefined && resolved !== null };
}

/** A value as people read it: a constant as JSON, a reference as what it names. */
export function describeValue(value: unknown): string {
  if (!isValueRef(value)) return JSON.stringify(value);
  if ("$input" in value) return `the run's input ${value.$input}`;
  return `fact ${value.$fact}${value.path ? `.${value.path}` : ""}${value.tool ? ` (read by ${value.tool})` : ""}`;
}

/** "orderId neq the run's input orderId", and with the run: the values compared, or that the reference did not resolve. */
export function describeCondition(condition: PermissionCondition, args?: unknown, run?: PermissionRunContext): string {
  const text = `${condition.path} ${condition.op} ${describeValue(condition.value)}`;
  if (args === undefined || !isValueRef(condition.value)) return text;
  const expected = resolveValue(condition.value, run);
  return `${text} (${JSON.stringify(at(args, condition.path)) ?? "missing"} vs ${expected.isResolved ? JSON.stringify(expected.value) : "nothing: the reference did not resolve"})`;
}

export function conditionHolds(condition: PermissionCondition, args: unknown, run?: PermissionRunContext): boolean {
  const actual = at(args, condition.path);
  const reference = resolveValue(condition.value, run);
  // A reference to the run that names nothing (no input field, no such fact) cannot be checked: it holds (fail closed).
  if (!reference.isResolved) return true;
  const expected = reference.value;
  switch (condition.op) {
    case "eq":
      return actual === expected;
    case "neq":
      return actual !== expected;
    case "in":
      return Array.isArray(expected) && expected.includes(actual);
    default: {
      // A limit that cannot be checked (the argument is missing or not a number) holds: fail closed.
      if (typeof actual !== "number" || typeof expected !== "number" || Number.isNaN(actual) || Number.isNaN(expected))
        return true;
      if (condition.op === "gt") return actual > expected;
      if (condition.op === "gte") return actual >= expected;
      if (condition.op === "lt") return actual < expected;
      return actual <= expected;
    }
  }
}
