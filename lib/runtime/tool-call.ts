import type { EngineContext } from "./context";
import type { RunCursor } from "./cursor";
import { resultKeyFor } from "./fact-keys";
import type { Action } from "./state";
import { ToolError, type ToolDefinition } from "./types";

// One call to a tool and what the step keeps of it: shared by reads, effects and their recovery, so a call
// is made, recorded and settled the same way whichever path made it (effects.ts, effect-in-doubt.ts).

export type CallResult =
  { ok: true; value: unknown; latencyMs: number } | { ok: false; error: ToolError; latencyMs: number };

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

export function recordCall(
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

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

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

/** Settle the step in memory from a final call result: a fact on success, an error observation otherwise. */
export function settle(
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
