// Read models for the run page. Pages call these, never Prisma directly: the runtime's store is the door
// for state (it loads and upgrades it through its schema); lists and the trace read through run-list.ts and
// run-events.ts.
import { getDb } from "@/lib/db";
import { getRuntime } from "@/lib/runtime.server";
import { isAppError } from "@/lib/runtime/errors";
import type { RecoveryView } from "@/lib/runtime/recovery";
import type { RunState } from "@/lib/runtime/state";
import type { RunRecord } from "@/lib/runtime/types";
import { toListedRunRecord } from "@/lib/store/records";
import { findRunEvents, type RunEventsPage } from "./run-events";

/** The agents a run can belong to (for the list's agent filter): the registered ones, by slug. */
export function listAgentSlugs(): string[] {
  return [...getRuntime().context.agents.keys()].sort();
}

export type CheckpointSummary = { seq: number; step: number; createdAt: Date };
type CheckpointWithState = CheckpointSummary & { state: RunState };

export type RunDetail = {
  kind: "readable";
  run: RunRecord;
  recovery: RecoveryView;
  /** The first page of the trace; the timeline loads the rest (and what comes next) by seq. */
  trace: RunEventsPage;
  checkpoints: CheckpointSummary[];
  /** The state shown: the checkpoint asked for, else the run's current state. */
  shownState: RunState;
  shownCheckpoint: CheckpointSummary | null;
  /** A checkpoint seq was asked for but the run has none with it. */
  isCheckpointMissing: boolean;
  /** Two checkpoints to compare, when both were asked for and exist. */
  compare: { from: CheckpointWithState; to: CheckpointWithState } | null;
};

/** A run whose stored state fails its schema: what can still be shown, so an operator can see what happened. */
export type UnreadableRunDetail = {
  kind: "unreadable";
  run: RunRecord;
  /** Why the state was not loaded (the schema's message). */
  stateError: string;
  /** The stored state text, as it is in the database. */
  storedState: string;
  trace: RunEventsPage;
  checkpoints: CheckpointSummary[];
};

export type RunDetailQuery = { checkpoint?: number; compareFrom?: number; compareTo?: number };

/** Everything the run page shows, or null when there is no such run. */
export async function getRunDetail(runId: string, query: RunDetailQuery = {}): Promise<RunDetail | UnreadableRunDetail | null> {
  const runtime = getRuntime();
  let run: RunRecord | null;
  try {
    run = await runtime.store.getRun(runId);
  } catch (error) {
    if (isAppError(error, "INVALID_STATE")) return getUnreadableRunDetail(runId, error.message);
    throw error;
  }
  if (!run) return null;
  const [recovery, trace, checkpoints] = await Promise.all([
    runtime.recoveryView(runId),
    findRunEvents(getDb(), runId),
    runtime.store.listCheckpoints(runId),
  ]);
  const find = (seq: number | undefined) => (seq === undefined ? undefined : checkpoints.find((c) => c.seq === seq));
  const selected = find(query.checkpoint);
  const [from, to] = [find(query.compareFrom), find(query.compareTo)];
  return {
    kind: "readable",
    run,
    recovery,
    trace,
    checkpoints: checkpoints.map(({ seq, step, createdAt }) => ({ seq, step, createdAt })),
    shownState: selected?.state ?? run.state,
    shownCheckpoint: selected ? { seq: selected.seq, step: selected.step, createdAt: selected.createdAt } : null,
    isCheckpointMissing: query.checkpoint !== undefined && !selected,
    compare: from && to ? { from, to } : null,
  };
}

/** The run page's facts that do not need the state: the run's row, its trace and its checkpoints' places. */
async function getUnreadableRunDetail(runId: string, stateError: string): Promise<UnreadableRunDetail | null> {
  const db = getDb();
  const [row, trace, checkpoints] = await Promise.all([
    db.run.findUnique({ where: { id: runId } }),
    findRunEvents(db, runId),
    db.checkpoint.findMany({ where: { runId }, select: { seq: true, step: true, createdAt: true }, orderBy: { seq: "asc" } }),
  ]);
  if (!row) return null;
  return { kind: "unreadable", run: toListedRunRecord(row), stateError, storedState: row.state, trace, checkpoints };
}
