import type { CachedRules, EngineContext } from "./context";
import type { RunCursor } from "./cursor";
import { evaluatePermission, externalVerdict, type PermissionRequest, type PermissionVerdict } from "./permissions";
import type { Action } from "./state";
import type { Capability, PermissionRule, ToolDefinition } from "./types";

// Checked at the moment of acting (docs/design.md), cheaply: an agent's rules are cached per permission
// epoch. The epoch the verdict rests on goes with the cursor, and the step's first commit after the
// check (its read's result, its intent, its approval request, its refusal) is written only while that
// epoch still holds, in the same statement: a change made after the check sends the step back to check
// again, and nothing it allowed is written. So the rules as last read are trusted for a short while
// without reading the epoch first (a pure step is then one statement): what the window lets through is
// at most a read whose result is never written.

/** How long the rules as last read stand without reading the epoch again (the commit is fenced either way). */
const TRUST_MS = 250;

export async function checkPermission(
  ctx: EngineContext,
  cursor: RunCursor,
  request: PermissionRequest,
): Promise<PermissionVerdict> {
  const cached = await rulesOf(ctx, cursor.run.workspaceId, request.agent, TRUST_MS);
  // Steps carried uncommitted rest on the first check among them: their commit is fenced by its epoch.
  cursor.permissionEpoch ??= cached.epoch;
  return evaluatePermission(cached.rules, request);
}

/** A commit refused because the epoch moved: the rules this process holds for the agent are stale. */
export function forgetPermissions(ctx: EngineContext, workspaceId: string, agent: string) {
  ctx.permissionCache.delete(cacheKey(workspaceId, agent));
}

/** Each workspace has its own rules: the cache holds an agent's per workspace. */
const cacheKey = (workspaceId: string, agent: string) => `${workspaceId}\u0000${agent}`;

/**
 * An agent's rules as last read, read again once older than `staleness`: the epoch first (the rules themselves
 * only when it moved). Runs that find them stale at the same moment share one read instead of each making its own.
 */
async function rulesOf(
  ctx: EngineContext,
  workspaceId: string,
  agent: string,
  staleness: number,
): Promise<CachedRules> {
  const key = cacheKey(workspaceId, agent);
  const cached = ctx.permissionCache.get(key);
  if (cached && performance.now() - cached.readAt <= staleness) return cached;
  let reading = ctx.permissionReads.get(key);
  if (!reading) {
    reading = (async () => {
      const epoch = cached ? await ctx.store.permissionEpoch() : undefined;
      const fresh =
        cached && epoch === cached.epoch
          ? { ...cached, readAt: performance.now() }
          : { ...(await ctx.store.listPermissionsAtEpoch(agent, workspaceId)), readAt: performance.now() };
      ctx.permissionCache.set(key, fresh);
      return fresh;
    })().finally(() => ctx.permissionReads.delete(key));
    ctx.permissionReads.set(key, reading);
  }
  return reading;
}

/** How stale the offer may be: the rules are re-read for it at most this often (authority is always fresh). */
const OFFER_STALENESS_MS = 1000;

/**
 * The tools an agent may be offered beyond its own list, with the capabilities granted for each: those a
 * rule grants it by name (registered HTTP and MCP tools an admin granted). From the rules as last read, re-checked against the epoch at most once
 * a second, so a step costs no extra read; the authority to call is checkPermission's, read fresh.
 */
export async function grantedTools(
  ctx: EngineContext,
  workspaceId: string,
  agent: { slug: string; tools: string[] },
): Promise<Map<string, Set<Capability>>> {
  const cached = await rulesOf(ctx, workspaceId, agent.slug, OFFER_STALENESS_MS);
  // tool → what its rules grant together (a rule per step may grant differently).
  const granted = new Map<string, Set<Capability>>();
  for (const rule of cached.rules) {
    if (!grantsByName(rule, agent.slug) || agent.tools.includes(rule.tool)) continue;
    const capabilities = granted.get(rule.tool) ?? new Set<Capability>();
    for (const capability of rule.capabilities) capabilities.add(capability);
    granted.set(rule.tool, capabilities);
  }
  return granted;
}

/** A rule that names this agent and one tool and does not deny it: a grant, not a wildcard's reach. */
export function grantsByName(rule: PermissionRule, agent: string): boolean {
  return rule.agent === agent && rule.tool !== "*" && rule.effect !== "deny";
}

/** The permission request for a call the run is about to make: the tool's traits, the run's input and facts, the evidence cited. */
export function callRequest(
  cursor: RunCursor,
  agent: string,
  tool: Pick<ToolDefinition, "name" | "capability" | "semantics">,
  action: Pick<Action, "args" | "planStep" | "evidence">,
): PermissionRequest {
  return {
    agent,
    tool: tool.name,
    step: action.planStep,
    args: action.args,
    capability: tool.capability,
    semantics: tool.semantics,
    run: { input: cursor.state.input, facts: cursor.state.facts, evidence: action.evidence, now: cursor.now() },
  };
}

/** The verdict for this tool: a caller-executed one always asks a person (permissions.ts externalVerdict). */
export function toolVerdict(
  tool: Pick<ToolDefinition, "name" | "external">,
  verdict: PermissionVerdict,
): PermissionVerdict {
  return tool.external ? externalVerdict(verdict, tool.name, tool.external.terms) : verdict;
}
