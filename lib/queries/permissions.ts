// Read model of the admin permission matrix: tools × agents, each cell the rules for that pair (one per
// step), what applies when a pair has no rule of its own, and the history of every change.
// Reads go through the runtime (the same rules the engine evaluates at the moment of acting).
import { builtInAgents } from "@/lib/agents";
import { getDb, type Db } from "@/lib/db";
import { getRuntime } from "@/lib/runtime.server";
import { describeRule } from "@/lib/runtime/permissions";
import { CAPABILITIES } from "@/lib/runtime/types";
import type { AgentDefinition, PermissionRule, Runtime } from "@/lib/runtime";
import { findToolNames } from "./tools";

export const ANY = "*";
export const HISTORY_LIMIT = 100;

export type MatrixAgent = { slug: string; name: string; steps: Array<{ id: string; title: string }> };

export type MatrixCell = {
  agent: string;
  tool: string;
  /** Rules written for exactly this (agent, tool): the step "*" one first, then per step. */
  rules: PermissionRule[];
  /** With no step-"*" rule of its own: the wildcard rule that applies instead, or null (deny: no rule grants it). */
  inherited: PermissionRule | null;
};

export type PermissionChangeView = {
  id: string;
  permissionId: string;
  version: number;
  rule: string; // agent/tool@step
  step: string;
  before: PermissionRule | null;
  after: PermissionRule | null;
  changedBy: string;
  at: Date;
};

export type PermissionMatrix = {
  agents: MatrixAgent[];
  tools: string[];
  cells: Record<string, MatrixCell>;
  rules: PermissionRule[];
};

export const cellKey = (agent: string, tool: string) => `${agent}\u0000${tool}`;

type PermissionsSource = Pick<Runtime, "permissions" | "store">;

const byStep = (a: PermissionRule, b: PermissionRule) =>
  a.step === ANY ? -1 : b.step === ANY ? 1 : a.step.localeCompare(b.step);

/** The most specific step-"*" rule with a wildcard that covers (agent, tool), as the engine would pick it. */
function inheritedRule(rules: PermissionRule[], agent: string, tool: string): PermissionRule | null {
  const candidates: Array<[string, string]> = [
    [agent, ANY],
    [ANY, tool],
    [ANY, ANY],
  ];
  for (const [a, t] of candidates) {
    if (a === agent && t === tool) continue;
    const rule = rules.find((r) => r.agent === a && r.tool === t && r.step === ANY);
    if (rule) return rule;
  }
  return null;
}

export async function getPermissionMatrix(
  opts: { runtime?: PermissionsSource; db?: Db; agents?: AgentDefinition[] } = {},
): Promise<PermissionMatrix> {
  const runtime = opts.runtime ?? getRuntime();
  const deployed = opts.agents ?? builtInAgents;
  const [rules, toolNames] = await Promise.all([runtime.permissions.list(), findToolNames(opts.db ?? getDb())]);
  const agents: MatrixAgent[] = deployed.map((a) => ({
    slug: a.slug,
    name: a.name,
    steps: (a.plan ?? []).map(({ id, title }) => ({ id, title })),
  }));
  for (const slug of new Set(rules.map((r) => r.agent))) {
    if (slug !== ANY && !agents.some((a) => a.slug === slug)) agents.push({ slug, name: slug, steps: [] });
  }
  agents.push({ slug: ANY, name: "Any agent", steps: [] });
  const tools = [...new Set([...toolNames, ...rules.map((r) => r.tool).filter((t) => t !== ANY)])].sort();
  tools.push(ANY);
  const cells: Record<string, MatrixCell> = {};
  for (const tool of tools) {
    for (const agent of agents) {
      const own = rules.filter((r) => r.agent === agent.slug && r.tool === tool).sort(byStep);
      const hasBase = own.some((r) => r.step === ANY);
      cells[cellKey(agent.slug, tool)] = {
        agent: agent.slug,
        tool,
        rules: own,
        inherited: hasBase ? null : inheritedRule(rules, agent.slug, tool),
      };
    }
  }
  return { agents, tools, cells, rules };
}

function toChangeView(
  change: Awaited<ReturnType<PermissionsSource["store"]["listPermissionChanges"]>>[number],
): PermissionChangeView {
  const before = (change.before ?? null) as PermissionRule | null;
  const after = (change.after ?? null) as PermissionRule | null;
  const subject = after ?? before;
  return {
    ...change,
    before,
    after,
    rule: subject ? describeRule(subject) : change.permissionId,
    step: subject?.step ?? "*",
  };
}

/** Every change, newest first (the latest HISTORY_LIMIT). */
export async function findPermissionHistory(
  opts: { runtime?: PermissionsSource; limit?: number } = {},
): Promise<PermissionChangeView[]> {
  const runtime = opts.runtime ?? getRuntime();
  return (await runtime.store.listPermissionChanges({ limit: opts.limit ?? HISTORY_LIMIT })).map(toChangeView);
}

/** The changes of one (agent, tool) pair: of its current rules, and of rules since removed. Newest first. */
export async function findCellHistory(
  agent: string,
  tool: string,
  opts: { runtime?: PermissionsSource } = {},
): Promise<PermissionChangeView[]> {
  const runtime = opts.runtime ?? getRuntime();
  const current = (await runtime.permissions.list(agent === ANY ? undefined : agent)).filter(
    (r) => r.agent === agent && r.tool === tool,
  );
  const perRule = await Promise.all(current.map((r) => runtime.permissions.history(r.id)));
  const known = new Set(current.map((r) => r.id));
  // Removed rules have no current id to ask by: found in the recent overall history by what they were.
  const removed = (await findPermissionHistory({ runtime, limit: 500 })).filter(
    (c) => !known.has(c.permissionId) && (c.after ?? c.before)?.agent === agent && (c.after ?? c.before)?.tool === tool,
  );
  return [...perRule.flat().map(toChangeView), ...removed].sort(
    (a, b) => b.at.getTime() - a.at.getTime() || b.version - a.version,
  );
}

/** What changed between two versions of a rule, for people: "effect: allow → deny". */
export function describeChange(before: PermissionRule | null, after: PermissionRule | null): string[] {
  if (!before && after)
    return [
      `created: ${after.effect}${after.conditions.length ? ` with ${after.conditions.length} condition(s)` : ""}`,
    ];
  if (before && !after) return [`removed (was ${before.effect})`];
  if (!before || !after) return [];
  const fields = [
    "effect",
    "conditions",
    "capabilities",
    "freshEvidence",
    "approvals",
    "queue",
    "ttlSeconds",
    "onExpire",
  ] as const;
  // Versions saved before capabilities and freshEvidence existed granted all four and did not ask for fresh evidence.
  const withDefaults = (rule: PermissionRule) => ({
    ...rule,
    capabilities: rule.capabilities ?? [...CAPABILITIES],
    freshEvidence: rule.freshEvidence ?? false,
  });
  const [was, now] = [withDefaults(before), withDefaults(after)];
  const show = (value: unknown) =>
    value === null || value === undefined ? "none" : typeof value === "object" ? JSON.stringify(value) : String(value);
  return fields.filter((f) => show(was[f]) !== show(now[f])).map((f) => `${f}: ${show(was[f])} → ${show(now[f])}`);
}
