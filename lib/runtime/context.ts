import type { AgentDefinition, Clock, DecisionPacket, IdSource, Logger, PermissionRule, ToolDefinition } from "./types";
import type { AgentRegistry } from "./agent-registry";
import type { RuntimeStore } from "./store";

// What every part of the engine is given. No module-level singletons: createRuntime builds one.

export const FAULT_POINTS = ["before-intent", "after-intent", "after-call", "after-commit"] as const;
/** "after-spawn": a child run was started and its parent has not recorded it yet (children.ts). */
export type FaultPoint = (typeof FAULT_POINTS)[number] | "after-spawn";

export type RuntimeOptions = {
  store: RuntimeStore;
  agents: AgentDefinition[];
  tools: ToolDefinition[];
  /** Tools registered at run time (HTTP, MCP): asked for a name the built-in list does not have. */
  resolveTool?: (name: string) => Promise<ToolDefinition | undefined>;
  clock?: Clock;
  ids?: IdSource;
  logger?: Logger;
  /** Awaited at every fault point around an external action; crash tests kill the process there. */
  onFaultPoint?: (point: FaultPoint, info: { runId: string; step: number; tool: string }) => Promise<void> | void;
  /** Who may decide which packet (queues naming their deciders…): why not, or null. Unset: anyone the caller let through. */
  authorizeDecision?: (reviewer: string, packet: DecisionPacket) => Promise<string | null>;
  /** Attempts for one call whose outcome is unknown (timeouts, 5xx) before a person is asked. */
  maxAttempts?: number;
  retryBaseDelayMs?: number;
  /** Tool errors in a row before the run fails instead of looping. */
  maxConsecutiveErrors?: number;
  /** Policy errors in a row (the model unreachable after its SDK's own retries) before a person is asked; default 5. */
  maxPolicyAttempts?: number;
  /** The first wait before the policy is asked again; doubled each time, at most 5 min. Default 2 s. */
  policyRetryBaseMs?: number;
  /** A parent waiting for a child run looks at it after this long, then twice as long each time, at most daily
   *  (a backstop for a lost wake-up; children.ts); default 5 min. */
  childCheckMs?: number;
  /** Free pure reads carried to the next commit instead of a commit each (cursor.ts commitRead); false: a
   *  commit every step. Default: at most 32 steps, held at most 500 ms. */
  carryReads?: CarryReads | false;
};

/** How much free work a run may hold uncommitted: what a crash can make it redo (cursor.ts commitRead). */
export type CarryReads = { maxSteps: number; maxMs: number };
/**
 * maxSteps bounds what a crash makes a run redo. maxMs bounds how late a carried step shows to someone watching
 * (the first step to end maxMs after it commits it, so a slow read adds its own time): half a second, under the
 * 2 s in which a console learns of another process's commits (lib/live/run-stream.ts).
 * It is wall time, which the other runs a worker drives fill too: with 200 runs in flight a run's next step
 * comes some 100 ms after its last, so 50 ms (the first default) carried little under load, the moment commits
 * cost the most (`PROFILE_MODE=concurrent npm run bench:profile` counts them: about three commits for a 10-step
 * run, one with 500 ms).
 */
export const DEFAULT_CARRY_READS: CarryReads = { maxSteps: 32, maxMs: 500 };

export type EngineContext = {
  store: RuntimeStore;
  /** Every loaded version of every agent, by (slug, version); get(slug) is the newest (agent-registry.ts). */
  agents: AgentRegistry;
  tools: Map<string, ToolDefinition>;
  resolveTool: (name: string) => Promise<ToolDefinition | undefined>;
  clock: Clock;
  ids: IdSource;
  logger: Logger;
  fault: (point: FaultPoint, info: { runId: string; step: number; tool: string }) => Promise<void>;
  authorizeDecision: (reviewer: string, packet: DecisionPacket) => Promise<string | null>;
  maxAttempts: number;
  retryBaseDelayMs: number;
  maxConsecutiveErrors: number;
  maxPolicyAttempts: number;
  policyRetryBaseMs: number;
  childCheckMs: number;
  carryReads: CarryReads | false;
  /** An agent's permission rules, by the epoch they were read at (permission-check.ts). */
  permissionCache: Map<string, CachedRules>;
  /** The reads of those rules in flight: the runs that find them stale at one moment share one read. */
  permissionReads: Map<string, Promise<CachedRules>>;
};

export type CachedRules = { epoch: number; rules: PermissionRule[]; readAt: number };

export const silentLogger: Logger = { info() {}, warn() {}, error() {} };

/**
 * A tool by name: in a run, the run's own first (AgentDefinition.runTools), then built-in, then the registered
 * ones (read fresh, so an admin's change counts).
 */
export async function findTool(ctx: EngineContext, name: string, run?: ToolScope): Promise<ToolDefinition | undefined> {
  return runTool(ctx, run, name) ?? ctx.tools.get(name) ?? (await ctx.resolveTool(name));
}

/** The run a tool is looked up for: its agent and input. */
export type ToolScope = { agentSlug: string; agentVersion?: string; input: unknown } | null | undefined;

/** A tool made for this run from its input; undefined when the run's agent makes none of that name. */
export function runTool(ctx: EngineContext, run: ToolScope, name: string): ToolDefinition | undefined {
  const agent = run
    ? ((run.agentVersion !== undefined ? ctx.agents.version(run.agentSlug, run.agentVersion) : undefined) ??
      ctx.agents.get(run.agentSlug))
    : undefined;
  const make = agent?.runTools;
  if (!make) return undefined;
  try {
    return make(run!.input).find((tool) => tool.name === name);
  } catch {
    return undefined; // an input the agent cannot make tools from has none
  }
}
