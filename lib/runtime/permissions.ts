import { z } from "zod";
import { PERMISSION_EFFECTS, type PermissionCondition, type PermissionEffect, type PermissionRule } from "./types";

// Least authority, checked at the moment of acting (DESIGN.md §5). Pure: the engine reads the rules
// before every action — also after a resume — so a change made while a run was paused counts
// (permission-check.ts caches them per permission epoch).

export const permissionConditionSchema = z.object({
  path: z.string().min(1),
  op: z.enum(["gt", "gte", "lt", "lte", "eq", "neq", "in"]),
  value: z.unknown(),
  effect: z.enum(PERMISSION_EFFECTS),
});

export const permissionInputSchema = z.object({
  agent: z.string().min(1),
  tool: z.string().min(1),
  step: z.string().min(1).default("*"),
  effect: z.enum(PERMISSION_EFFECTS),
  conditions: z.array(permissionConditionSchema).default([]),
  approvals: z.number().int().min(1).max(5).default(1),
  onExpire: z.string().regex(/^(reject|escalate:[\w-]+)$/, 'use "reject" or "escalate:<queue>"').default("reject"),
  queue: z.string().min(1).default("default"),
  ttlSeconds: z.number().int().positive().nullable().default(null),
});
export type PermissionInput = z.input<typeof permissionInputSchema>;

export type PermissionVerdict = {
  effect: PermissionEffect;
  rule: PermissionRule | null;
  /** Human-readable why: which rule, which condition. */
  reason: string;
};

const RESTRICTIVENESS: Record<PermissionEffect, number> = { allow: 0, require_approval: 1, deny: 2 };

/** What is about to happen, as the rules see it. */
export type PermissionRequest = { agent: string; tool: string; step?: string; args: unknown };

/** The most specific rule wins (agent, then tool, then step); no rule at all means deny. */
export function evaluatePermission(rules: PermissionRule[], action: PermissionRequest): PermissionVerdict {
  const matching = rules.filter(
    (r) => (r.agent === "*" || r.agent === action.agent) && (r.tool === "*" || r.tool === action.tool) && (r.step === "*" || r.step === action.step),
  );
  if (matching.length === 0) return { effect: "deny", rule: null, reason: `no permission grants ${action.agent} the tool ${action.tool}` };
  const specificity = (r: PermissionRule) => (r.agent !== "*" ? 4 : 0) + (r.tool !== "*" ? 2 : 0) + (r.step !== "*" ? 1 : 0);
  const rule = matching.sort((a, b) => specificity(b) - specificity(a))[0];

  let effect = rule.effect;
  let reason = `rule ${describeRule(rule)} v${rule.version}: ${rule.effect}`;
  for (const condition of rule.conditions) {
    if (conditionHolds(condition, action.args) && RESTRICTIVENESS[condition.effect] > RESTRICTIVENESS[effect]) {
      effect = condition.effect;
      reason = `rule ${describeRule(rule)} v${rule.version}: ${condition.effect} because ${condition.path} ${condition.op} ${JSON.stringify(condition.value)}`;
    }
  }
  return { effect, rule, reason };
}

export function describeRule(rule: Pick<PermissionRule, "agent" | "tool" | "step">): string {
  return `${rule.agent}/${rule.tool}${rule.step === "*" ? "" : `@${rule.step}`}`;
}

export function conditionHolds(condition: PermissionCondition, args: unknown): boolean {
  const actual = condition.path.split(".").reduce<unknown>((v, k) => (v && typeof v === "object" ? (v as Record<string, unknown>)[k] : undefined), args);
  const expected = condition.value;
  switch (condition.op) {
    case "eq": return actual === expected;
    case "neq": return actual !== expected;
    case "in": return Array.isArray(expected) && expected.includes(actual);
    default: {
      // A limit that cannot be checked (the argument is missing or not a number) holds: fail closed.
      if (typeof actual !== "number" || typeof expected !== "number" || Number.isNaN(actual) || Number.isNaN(expected)) return true;
      if (condition.op === "gt") return actual > expected;
      if (condition.op === "gte") return actual >= expected;
      if (condition.op === "lt") return actual < expected;
      return actual <= expected;
    }
  }
}
