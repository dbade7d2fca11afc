import { actionDigest, operationId } from "./canonical";
import { findTool, type EngineContext } from "./context";
import type { RunCursor, StepOutcome } from "./cursor";
import { resultKeyFor } from "./fact-keys";
import type { Action, Pending } from "./state";
import { IN_DOUBT_OPTIONS, ToolError, type DecisionPacket, type ToolDefinition } from "./types";

// The effect protocol (docs/design.md): intent committed before the call, the call made with a stable
// key, result + state + events committed together. On resume an intent without a result "may have
// happened": idempotent → retry with the same key; reconcilable → look it up first; unsafe → a person.

type EffectPending = Extract<Pending, { kind: "effect" }>;
type CallResult = { ok: true; value: unknown; latencyMs: number } | { ok: false; error: ToolError; latencyMs: number };

export async function invokeTool(
  ctx: EngineContext,
  cursor: RunCursor,
  tool: ToolDefinition,
  args: unknown,
  call: { runId: string; step: number; operationId: string; attempt: number },
): Promise<CallResult> {
  cursor.assertHeld(); // outside the try: a lapsed lease is not a tool error
  const started = performance.now();
  const callCtx = { ...call, idempotencyKey: call.operationId };
  try {
    let value = await tool.run(args, callCtx);
    if (tool.output) {
      const parsed = tool.output.safeParse(value);
      if (!parsed.success)
        throw new ToolError("invalid_output", `${tool.name} returned output that does not match its schema`, "unknown");
      value = parsed.data;
    }
    return { ok: true, value, latencyMs: Math.round(performance.now() - started) };
  } catch (error) {
    const toolError =
      error instanceof ToolError
        ? error
        : new ToolError("internal", error instanceof Error ? error.message : String(error), "unknown");
    return { ok: false, error: toolError, latencyMs: Math.round(performance.now() - started) };
  }
}

function recordCall(
  cursor: RunCursor,
  tool: ToolDefinition,
  args: unknown,
  opId: string | null,
  attempt: number,
  result: CallResult,
) {
  cursor.event("tool.call", {
    tool: tool.name,
    args,
    semantics: tool.semantics,
    operationId: opId,
    idempotencyKey: opId,
    attempt,
    latencyMs: result.latencyMs,
    ...(result.ok
      ? { result: result.value }
      : { error: result.error.message, errorClass: result.error.errorClass, outcome: result.error.outcome }),
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Calls a pure read, again after a transient error (a refusal is final); `onAttempt` sees every attempt. */
export async function readWithRetries(
  ctx: EngineContext,
  cursor: RunCursor,
  tool: ToolDefinition,
  args: unknown,
  call: { runId: string; step: number; operationId: string },
  onAttempt: (attempt: number, result: CallResult) => void,
): Promise<CallResult> {
  let result: CallResult | undefined;
  for (let attempt = 1; attempt <= ctx.maxAttempts; attempt++) {
    result = await invokeTool(ctx, cursor, tool, args, { ...call, attempt });
    onAttempt(attempt, result);
    if (result.ok || result.error.outcome === "not_applied") break;
    if (attempt < ctx.maxAttempts) await sleep(ctx.retryBaseDelayMs * 2 ** (attempt - 1));
  }
  return result!;
}

/** A read: no intent (it cannot change the world); retried on transient errors; one commit. */
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
  return cursor.commit({ status: "RUNNING" });
}

/** Settle the step in memory from a final call result: a fact on success, an error observation otherwise. */
function settle(
  ctx: EngineContext,
  cursor: RunCursor,
  tool: ToolDefinition,
  action: Action,
  result: CallResult,
  opId: string | null,
  how = "call",
) {
  if (result.ok) {
    const at = cursor.now();
    const receiptId = tool.receiptId?.(result.value);
    // Never in the place of a fact the tool does not own, whatever key the policy asked for (fact-keys.ts).
    const { key, refused } = resultKeyFor(cursor.state, tool.name, action.resultKey);
    cursor.addFact({
      key,
      value: result.value,
      kind: tool.semantics === "pure-read" ? "observation" : "receipt",
      expiresAt: tool.freshnessMs ? new Date(at.getTime() + tool.freshnessMs).toISOString() : null,
      source: {
        tool: tool.name,
        args: action.args,
        ...(opId ? { operationId: opId } : {}),
        ...(receiptId ? { receiptId } : {}),
      },
    });
    // The result lives in the fact (once); the observation only points at it.
    const outcome = `${tool.name} ${how === "lookup" ? "was found already applied" : "succeeded"}`;
    cursor.observe({
      kind: "tool_result",
      tool: tool.name,
      message: refused
        ? `${outcome}; its result is kept under "${key}", not "${refused.requested}": that key holds ${refused.heldBy}, which ${tool.name} may not replace`
        : outcome,
      data: { factKey: key, ...(refused ? { requestedKey: refused.requested } : {}) },
    });
    cursor.state.consecutiveErrors = 0;
  } else {
    cursor.observe({
      kind: "tool_error",
      tool: tool.name,
      message: result.error.message,
      data: { errorClass: result.error.errorClass, details: result.error.details },
    });
    cursor.state.consecutiveErrors += 1;
  }
  cursor.finishStep();
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

/**
 * Read-before-write: if the system already applied this operation, settle with what it reports
 * ("absent" only when the lookup answered that it did not). A lookup that fails proves nothing, so it
 * never leads to a second call: after a few tries the run stops and a person decides.
 */
async function reconcile(
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

/** Stop and ask a person: the effect's outcome is unknown and repeating it is not known to be safe. */
async function escalateUnknown(
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

export function safeImpact(tool: ToolDefinition, args: unknown): string {
  try {
    return tool.impact(args);
  } catch {
    return `${tool.name} with ${JSON.stringify(args)}`;
  }
}
