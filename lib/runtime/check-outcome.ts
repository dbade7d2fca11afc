import { findTool, type EngineContext } from "./context";
import { AppError } from "./errors";
import { actingWorkspace } from "./workspace";

// "Check now" on an unknown-outcome packet: ask the outside system, through the tool's own lookup by
// operation id, whether the call happened. It only reads: the person still decides, now with the answer.

export type OutcomeCheck = {
  packetId: string;
  operationId: string;
  /** The system has a record of this operation. */
  found: boolean;
  /** Its id for what it did (e.g. a refund id), when the tool names one. */
  receipt: string | null;
  result: unknown;
  checkedAt: Date;
};

export async function checkUnknownOutcome(
  ctx: EngineContext,
  opts: { packetId: string; workspaceId?: string | null },
): Promise<OutcomeCheck> {
  const packet = await ctx.store.getPacket(opts.packetId, actingWorkspace(opts.workspaceId));
  if (!packet)
    throw new AppError("NOT_FOUND", {
      message: `packet ${opts.packetId} not found`,
      userMessage: "That decision packet does not exist.",
    });
  if (packet.kind !== "UNKNOWN_OUTCOME") {
    throw new AppError("INVALID_INPUT", {
      message: `packet ${packet.id} is an approval`,
      userMessage: "Only a packet for an unknown outcome can be checked against the outside system.",
    });
  }
  const tool = await findTool(ctx, packet.tool);
  if (!tool?.lookup) {
    throw new AppError("INVALID_INPUT", {
      message: `${packet.tool} has no lookup`,
      userMessage: `${packet.tool} cannot be looked up by operation: check the system by hand, then say what it shows.`,
    });
  }
  const run = await ctx.store.getRun(packet.runId);
  const pending = run?.state.pending;
  const intentId = pending?.kind === "gate" && pending.packetId === packet.id ? pending.intentId : undefined;
  const intent = intentId ? await ctx.store.getIntent(intentId) : null;
  if (!intent)
    throw new AppError("INVALID_STATE", {
      message: `packet ${packet.id} has no intent to look up`,
      userMessage: "The run no longer waits on this call, so there is nothing to check.",
    });
  try {
    const result =
      (await tool.lookup(packet.args, {
        runId: packet.runId,
        step: packet.step,
        operationId: intent.id,
        idempotencyKey: intent.id,
        attempt: intent.attempt,
      })) ?? null;
    const found = result !== null;
    return {
      packetId: packet.id,
      operationId: intent.id,
      found,
      receipt: found ? (tool.receiptId?.(result) ?? null) : null,
      result,
      checkedAt: ctx.clock.now(),
    };
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new AppError("CONFLICT", {
      message: `lookup of ${intent.id} failed: ${why}`,
      userMessage: `${packet.tool}'s system did not answer (${why}); try again, or check it by hand.`,
    });
  }
}
