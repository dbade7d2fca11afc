import { actionDigest } from "./canonical";
import type { EngineContext } from "./context";
import type { RunCursor, StepOutcome } from "./cursor";
import { safeImpact } from "./impact";
import type { Pending } from "./state";
import { settle, sleep } from "./tool-call";
import { IN_DOUBT_OPTIONS, type ToolDefinition } from "./types";

// An effect whose outcome is unknown (a timeout, a crash after the intent): never a silent second call. A
// reconcilable tool's own record is looked up first; when that cannot settle it, the run stops and a person
// decides (an UNKNOWN_OUTCOME packet). effects.ts decides when an outcome is in doubt; this file, what then.

export type EffectPending = Extract<Pending, { kind: "effect" }>;

/**
 * Read-before-write: if the system already applied this operation, settle with what it reports
 * ("absent" only when the lookup answered that it did not). A lookup that fails proves nothing, so it
 * never leads to a second call: after a few tries the run stops and a person decides.
 */
export async function reconcile(
  ctx: EngineContext,
  cursor: RunCursor,
  tool: ToolDefinition,
  pending: EffectPending,
  attempt: number,
  opts: { confirmMissAfterMs?: number } = {},
): Promise<StepOutcome | "absent"> {
  const escalate = (why: string) => escalateUnknown(ctx, cursor, tool, pending, attempt, why);
  if (!tool.lookup) return escalate(`${tool.name} is reconcilable but has no lookup`);
  let found = await lookUp(ctx, cursor, tool, pending, attempt);
  if (found === null && opts.confirmMissAfterMs !== undefined) {
    await sleep(opts.confirmMissAfterMs);
    found = await lookUp(ctx, cursor, tool, pending, attempt);
  }
  if (found === LOOKUP_FAILED) return escalate("the lookup could not tell whether the call was applied");
  if (found === null) return "absent";
  settle(ctx, cursor, tool, pending.action, { ok: true, value: found, latencyMs: 0 }, pending.intentId, "lookup");
  const outcome = await cursor.commit({
    status: "RUNNING",
    updateIntent: { id: pending.intentId, status: "SUCCEEDED", attempt, result: found },
  });
  await ctx.fault("after-commit", { runId: cursor.runId, step: cursor.step, tool: tool.name });
  return outcome;
}

const LOOKUP_FAILED = Symbol("lookup failed");

/** The system's record of this operation: its receipt, null when it has none, LOOKUP_FAILED when every try failed. */
async function lookUp(
  ctx: EngineContext,
  cursor: RunCursor,
  tool: ToolDefinition,
  pending: EffectPending,
  attempt: number,
): Promise<unknown> {
  for (let tries = 1; ; tries++) {
    cursor.assertHeld();
    try {
      const found = await tool.lookup!(pending.action.args, {
        runId: cursor.runId,
        step: pending.step,
        operationId: pending.intentId,
        idempotencyKey: pending.intentId,
        attempt,
      });
      cursor.event("effect.lookup", {
        operationId: pending.intentId,
        tool: tool.name,
        found: found !== null && found !== undefined,
      });
      return found ?? null;
    } catch (error) {
      cursor.event("effect.lookup_failed", {
        operationId: pending.intentId,
        tool: tool.name,
        try: tries,
        error: error instanceof Error ? error.message : String(error),
      });
      if (tries >= ctx.maxAttempts) return LOOKUP_FAILED;
      await sleep(ctx.retryBaseDelayMs * 2 ** (tries - 1));
    }
  }
}

/** Stop and ask a person: the effect's outcome is unknown and repeating it is not known to be safe. */
export async function escalateUnknown(
  ctx: EngineContext,
  cursor: RunCursor,
  tool: ToolDefinition | null,
  pending: EffectPending,
  attempt: number,
  why: string,
  hasIntent = true,
): Promise<StepOutcome> {
  const packetId = ctx.ids.id("pkt");
  const impact = tool ? safeImpact(tool, pending.action.args) : `${pending.action.tool} (unregistered tool)`;
  cursor.event("effect.unknown_outcome", {
    operationId: pending.intentId,
    tool: pending.action.tool,
    attempt,
    why,
    packetId,
  });
  cursor.state.pending = {
    kind: "gate",
    packetId,
    step: pending.step,
    action: pending.action,
    intentId: pending.intentId,
  };
  cursor.state.risks = [
    ...cursor.state.risks,
    { id: pending.intentId, description: `${impact} may have happened: ${why}`, level: "high" },
  ];
  return cursor.park("NEEDS_ATTENTION", {
    ...(hasIntent
      ? { updateIntent: { id: pending.intentId, status: "UNKNOWN" as const, attempt, result: { unknown: why } } }
      : {}),
    createPacket: {
      id: packetId,
      runId: cursor.runId,
      step: pending.step,
      kind: "UNKNOWN_OUTCOME",
      tool: pending.action.tool,
      args: pending.action.args,
      digest: actionDigest({
        runId: cursor.runId,
        step: pending.step,
        tool: pending.action.tool,
        args: pending.action.args,
      }),
      requestedBy: `agent:${cursor.run.agentSlug}`,
      traits: tool ? { capability: tool.capability, semantics: tool.semantics } : null,
      content: {
        impact: `${impact} — may or may not have happened`,
        reasoning: why,
        uncertainty: "The system did not confirm the outcome and this tool cannot be safely repeated.",
        evidence: [],
        options: [...IN_DOUBT_OPTIONS],
      },
      queue: "attention",
      assignee: null,
      requiredApprovals: 1,
      onExpire: "reject",
      expiresAt: null,
    },
  });
}
