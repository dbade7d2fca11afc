// Read models for the runs pages. Pages call these, never Prisma: the runtime's store is the door.
import { getRuntime } from "@/lib/runtime.server";
import type { RecoveryView } from "@/lib/runtime/recovery";
import type { RunState } from "@/lib/runtime/state";
import { RUN_STATUSES, type RunRecord, type RunStatus, type TraceEvent } from "@/lib/runtime/types";

export const RUNS_PAGE_SIZE = 50;
export const TRACE_EVENT_LIMIT = 500;

export function parseRunStatus(value: string | undefined): RunStatus | undefined {
  return RUN_STATUSES.find((status) => status === value);
}

/**
 * One page of runs, newest first. The cursor is the id of the last run of the previous page
 * (the store treats it as exclusive); one extra row tells whether a next page exists.
 */
export async function findRunsPage(opts: { status?: RunStatus; cursor?: string }): Promise<{ runs: RunRecord[]; nextCursor: string | null }> {
  const { store } = await getRuntime();
  const rows = await store.findRuns({ status: opts.status ? [opts.status] : undefined, cursor: opts.cursor, limit: RUNS_PAGE_SIZE + 1 });
  const runs = rows.slice(0, RUNS_PAGE_SIZE);
  return { runs, nextCursor: rows.length > RUNS_PAGE_SIZE ? runs[runs.length - 1].id : null };
}

export type CheckpointSummary = { seq: number; step: number; createdAt: Date };

export type RunDetail = {
  run: RunRecord;
  recovery: RecoveryView;
  events: TraceEvent[];
  hasMoreEvents: boolean;
  checkpoints: CheckpointSummary[];
  /** The state shown: the checkpoint asked for, else the run's current state. */
  shownState: RunState;
  shownCheckpoint: CheckpointSummary | null;
  /** A checkpoint seq was asked for but the run has none with it. */
  isCheckpointMissing: boolean;
};

/** Everything the run page shows, or null when there is no such run. */
export async function getRunDetail(runId: string, checkpointSeq?: number): Promise<RunDetail | null> {
  const runtime = await getRuntime();
  const run = await runtime.store.getRun(runId);
  if (!run) return null;
  const [recovery, events, checkpoints] = await Promise.all([
    runtime.recoveryView(runId),
    runtime.store.listEvents(runId, { limit: TRACE_EVENT_LIMIT + 1 }),
    runtime.store.listCheckpoints(runId),
  ]);
  const selected = checkpointSeq === undefined ? undefined : checkpoints.find((c) => c.seq === checkpointSeq);
  return {
    run,
    recovery,
    events: events.slice(0, TRACE_EVENT_LIMIT),
    hasMoreEvents: events.length > TRACE_EVENT_LIMIT,
    checkpoints: checkpoints.map(({ seq, step, createdAt }) => ({ seq, step, createdAt })),
    shownState: selected?.state ?? run.state,
    shownCheckpoint: selected ? { seq: selected.seq, step: selected.step, createdAt: selected.createdAt } : null,
    isCheckpointMissing: checkpointSeq !== undefined && !selected,
  };
}
