import { operationId } from "./canonical";
import { findTool, type EngineContext } from "./context";
import type { RunCursor, StepOutcome } from "./cursor";
import { escalateUnknown, reconcile, type EffectPending } from "./effect-in-doubt";
import { resultKeyFor } from "./fact-keys";
import type { Action } from "./state";
import { invokeTool, readWithRetries, recordCall, settle, sleep } from "./tool-call";
import type { DecisionPacket, ToolDefinition } from "./types";

// The effect protocol (docs/design.md): intent committed before the call, the call made with a stable
// key, result + state + events committed together. On resume an intent without a result "may have
// happened": idempotent → retry with the same key; reconcilable → look it up first; unsafe → a person.
// This file is the protocol's order of commits; one call is made in tool-call.ts, and an outcome in doubt is
// looked up or handed to a person in effect-in-doubt.ts.

/** A read: no intent (it cannot change the world); retried on transient errors; at most one commit. */
export async function performRead(
  ctx: EngineContext,
  cursor: RunCursor,
  tool: ToolDefinition,
  action: Action,
): Promise<StepOutcome> {
  const call = { runId: cursor.runId, step: cursor.step, operationId: operationId(cursor.runId, cursor.step, 0) };
  cursor.state.budget.toolCalls += 1; // committed with the read's result (a read redone after a crash counts once)
  const result = await readWithRetries(ctx, cursor, tool, action.args, call, (attempt, r) =>
    recordCall(cursor, tool, action.args, null, attempt, r),
  );
  settle(ctx, cursor, tool, action, result, null);
  return cursor.commitRead();
}

/** Commit the intent (and use the approval, if any), then make the call. */
export async function startEffect(
  ctx: EngineContext,
  cursor: RunCursor,
  tool: ToolDefinition,
  action: Action,
  approval: DecisionPacket | null,
): Promise<StepOutcome> {
  const info = { runId: cursor.runId, step: cursor.step, tool: tool.name };
  await ctx.fault("before-intent", info);
  const opId = operationId(cursor.runId, cursor.step, 0);
  const pending: EffectPending = { kind: "effect", intentId: opId, step: cursor.step, call: 0, action };
  cursor.state.pending = pending;
  cursor.state.budget.toolCalls += 1; // committed with the intent: a retry or recovery of this call does not count again
  if (approval) {
    cursor.state.approvals = cursor.state.approvals.map((a) =>
      a.packetId === approval.id ? { ...a, usedAt: cursor.now().toISOString() } : a,
    );
  }
  cursor.event("effect.intent", {
    operationId: opId,
    idempotencyKey: opId,
    tool: tool.name,
    args: action.args,
    semantics: tool.semantics,
    ...(approval ? { packetId: approval.id } : {}),
  });
  await cursor.commit({
    status: "RUNNING",
    createIntent: {
      id: opId,
      runId: cursor.runId,
      step: cursor.step,
      tool: tool.name,
      args: action.args,
      semantics: tool.semantics,
      decision: action,
    },
    // An approval is used once: the same commit that records the intent consumes it.
    ...(approval ? { updatePacket: { id: approval.id, version: approval.version, usedAt: cursor.now() } } : {}),
  });
  await ctx.fault("after-intent", info);
  if (tool.external) return awaitCallerOutcome(cursor, tool, pending);
  return performEffect(ctx, cursor, tool, pending, 1);
}

const CALLER_OUTCOMES = ["happened", "failed", "not_done"] as const;

/**
 * A caller-executed effect (ToolDefinition.external): the intent is committed and the caller performs the
 * action, then reports what it did as a signal. Until it arrives the run is parked (no compute, no lease);
 * the report settles the intent: "happened" → SUCCEEDED with its receipt, "failed" / "not_done" → FAILED.
 */
export async function awaitCallerOutcome(
  cursor: RunCursor,
  tool: ToolDefinition,
  pending: EffectPending,
): Promise<StepOutcome> {
  const signalType = tool.external!.outcomeSignal;
  const [signal] = await cursor.signals(signalType);
  if (!signal) {
    cursor.state.pending = pending;
    cursor.event("effect.awaiting_caller", { operationId: pending.intentId, tool: tool.name, signalType });
    return cursor.park("WAITING_EVENT", { waitingFor: signalType });
  }
  const report = (signal.payload ?? {}) as { status?: string; receipt?: unknown; detail?: string; reportedBy?: string };
  const status = (CALLER_OUTCOMES as readonly string[]).includes(report.status ?? "") ? report.status! : "failed";
  const receiptId = typeof report.receipt === "string" ? report.receipt : undefined;
  cursor.event("signal.consumed", { signalId: signal.id, signalType: signal.type, dedupKey: signal.dedupKey });
  cursor.event("tool.call", {
    tool: tool.name,
    args: pending.action.args,
    semantics: tool.semantics,
    operationId: pending.intentId,
    idempotencyKey: pending.intentId,
    attempt: 1,
    executedBy: "caller",
    ...(status === "happened" ? { result: report } : { error: report.detail ?? status, outcome: "not_applied" }),
  });
  if (status === "happened") {
    const { key } = resultKeyFor(cursor.state, tool.name, pending.action.resultKey);
    cursor.addFact({
      key,
      value: report,
      kind: "receipt",
      source: {
        tool: tool.name,
        args: pending.action.args,
        operationId: pending.intentId,
        by: report.reportedBy,
        ...(receiptId ? { receiptId } : {}),
      },
    });
    cursor.observe({
      kind: "tool_result",
      tool: tool.name,
      message: `The caller reports that ${tool.name} happened${receiptId ? ` (receipt ${receiptId})` : ""}`,
      data: { factKey: key },
    });
  } else {
    cursor.observe({
      kind: "tool_error",
      tool: tool.name,
      message: `The caller reports that ${tool.name} ${status === "failed" ? "failed" : "was not done"}${report.detail ? `: ${report.detail}` : ""}`,
      data: { outcome: status },
    });
  }
  cursor.finishStep();
  return cursor.commit({
    status: "RUNNING",
    consumeSignalIds: [signal.id],
    updateIntent: {
      id: pending.intentId,
      status: status === "happened" ? "SUCCEEDED" : "FAILED",
      attempt: 1,
      result: report,
    },
  });
}

/** Call (or re-call) an effect whose intent is committed, until its outcome is known or a person must decide. */
export async function performEffect(
  ctx: EngineContext,
  cursor: RunCursor,
  tool: ToolDefinition,
  pending: EffectPending,
  firstAttempt: number,
): Promise<StepOutcome> {
  const info = { runId: cursor.runId, step: cursor.step, tool: tool.name };
  const { action, intentId } = pending;
  for (let attempt = firstAttempt; ; attempt++) {
    const result = await invokeTool(ctx, cursor, tool, action.args, {
      runId: cursor.runId,
      step: pending.step,
      operationId: intentId,
      attempt,
    });
    recordCall(cursor, tool, action.args, intentId, attempt, result);
    await ctx.fault("after-call", info);

    if (result.ok || result.error.outcome === "not_applied") {
      settle(ctx, cursor, tool, action, result, intentId);
      const outcome = await cursor.commit({
        status: "RUNNING",
        updateIntent: {
          id: intentId,
          status: result.ok ? "SUCCEEDED" : "FAILED",
          attempt,
          result: result.ok ? result.value : { error: result.error.message, errorClass: result.error.errorClass },
        },
      });
      await ctx.fault("after-commit", info);
      return outcome;
    }
    // The outcome is unknown: the call may have changed the world.
    const escalate = (why: string) => escalateUnknown(ctx, cursor, tool, pending, attempt, why);
    if (tool.semantics === "unsafe") return escalate(result.error.message);
    if (tool.semantics === "reconcilable") {
      // A request that timed out may still be in flight: a lookup at once can miss an effect that lands a
      // moment later, so a miss is only believed when a second lookup, after a pause, agrees.
      const settled = await reconcile(ctx, cursor, tool, pending, attempt, {
        confirmMissAfterMs: ctx.retryBaseDelayMs * 2 ** attempt,
      });
      if (settled !== "absent") return settled;
    }
    if (attempt >= ctx.maxAttempts) return escalate(`${attempt} attempts failed: ${result.error.message}`);
    await sleep(ctx.retryBaseDelayMs * 2 ** (attempt - 1));
  }
}

/** Resume an effect left "may have happened" by a crash. Never a silent second execution. */
export async function recoverEffect(
  ctx: EngineContext,
  cursor: RunCursor,
  pending: EffectPending,
): Promise<StepOutcome> {
  const tool = await findTool(ctx, pending.action.tool, cursor.run);
  const intent = await ctx.store.getIntent(pending.intentId);
  if (!tool || !intent) {
    const why = tool ? "the intent record is missing" : `tool ${pending.action.tool} is no longer registered`;
    return escalateUnknown(ctx, cursor, tool ?? null, pending, intent?.attempt ?? 1, why, intent !== null);
  }
  // The caller performs it: nothing to call again, only its report to wait for.
  if (tool.external) return awaitCallerOutcome(cursor, tool, pending);
  cursor.event("effect.recovering", {
    operationId: intent.id,
    tool: tool.name,
    semantics: tool.semantics,
    attempt: intent.attempt,
  });
  if (tool.semantics === "unsafe")
    return escalateUnknown(
      ctx,
      cursor,
      tool,
      pending,
      intent.attempt,
      "the worker stopped after the intent was recorded; the call may have happened",
    );
  if (tool.semantics === "reconcilable") {
    // The crashed worker's request may still be in flight too: a miss is confirmed as after a timeout.
    const settled = await reconcile(ctx, cursor, tool, pending, intent.attempt, {
      confirmMissAfterMs: ctx.retryBaseDelayMs * 2 ** intent.attempt,
    });
    if (settled !== "absent") return settled;
  }
  return performEffect(ctx, cursor, tool, pending, intent.attempt + 1);
}
