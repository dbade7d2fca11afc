import { auditNote } from "./store";
import type { EngineContext } from "./context";
import { AppError } from "./errors";
import { forkState, recordedDecisions } from "./replay";
import type { RunRecord } from "./types";

export type ForkOptions = { checkpointSeq: number; startedBy?: string; via?: string };

/**
 * Fork a new run from any checkpoint of another: same state, nothing pending, a fresh trace. It replays the
 * source's decisions (no model asked) until its state differs from the source's at a step (replay.ts).
 */
export async function forkRun(ctx: EngineContext, source: RunRecord, opts: ForkOptions): Promise<RunRecord> {
  const { store } = ctx;
  const checkpoint = await store.getCheckpoint(source.id, opts.checkpointSeq);
  if (!checkpoint)
    throw new AppError("NOT_FOUND", {
      message: `checkpoint ${opts.checkpointSeq} of ${source.id} not found`,
      userMessage: "That checkpoint does not exist.",
    });
  // The source's recorded decisions from the checkpoint on, read once: the fork replays them while it stays on their path.
  const state = forkState(
    checkpoint.state,
    source.id,
    await recordedDecisions(store, source.id, checkpoint.state.step),
  );
  const id = ctx.ids.id("run");
  const { run } = await store.createRun({
    id,
    agentSlug: source.agentSlug,
    agentVersion: source.agentVersion,
    input: source.input,
    state,
    idempotencyKey: null,
    startedBy: opts.startedBy ?? null,
    parentRunId: source.id,
    workspaceId: source.workspaceId,
    audit: opts.startedBy
      ? auditNote(
          "runs.fork",
          source.id,
          { by: opts.startedBy, via: opts.via },
          { checkpointSeq: opts.checkpointSeq, forkId: id },
        )
      : undefined,
    events: [
      {
        type: "run.forked",
        step: state.step,
        data: {
          from: source.id,
          checkpointSeq: opts.checkpointSeq,
          replayable: state.replay?.decisions.length ?? 0,
        },
      },
    ],
  });
  return run;
}
