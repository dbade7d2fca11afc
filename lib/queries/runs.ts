// Read models for the run page. Pages call these, never Prisma directly: the runtime's store is the door
// for the run and its current state (it loads and upgrades the state through its schema); checkpoints,
// lists and the trace read through run-checkpoints.ts, run-list.ts and run-events.ts.
//
// What grows with a run is read only when it is shown: the page opens with one page of the trace (the
// timeline loads more as it scrolls) and the trace's counts and cost as numbers (run-trace-summary.ts);
// the checkpoint list is metadata, its newest page (older pages load when asked), a checkpoint's state is
// loaded when it is viewed or compared, and the live page asks for a snapshot (current state, recovery,
// checkpoint list) only when the run writes a new checkpoint — never the whole page again.
import { getDb } from "@/lib/db";
import { getRuntime } from "@/lib/runtime.server";
import { AppError, isAppError } from "@/lib/runtime/errors";
import { buildRecoveryView, type RecoveryView } from "@/lib/runtime/recovery";
import type { RunState } from "@/lib/runtime/state";
import { TERMINAL_STATUSES, type RunRecord, type RunStatus } from "@/lib/runtime/types";
import { toListedRunRecord, toRunRecords } from "@/lib/store/records";
import {
  findCheckpoint,
  findCheckpointSummaries,
  type CheckpointSummary,
  type CheckpointWithState,
} from "./run-checkpoints";
import { findOpeningTraceWindow, type TraceWindow } from "./run-events";
import { findTraceSummary, type TraceSummary } from "./run-trace-summary";

/** The agents a run can belong to (for the list's agent filter): the registered ones, by slug. */
export function listAgentSlugs(): string[] {
  return [...getRuntime().context.agents.keys()].sort();
}

/**
 * What the run page shows that changes with each checkpoint: the live page fetches it again when the
 * run's stateSeq (or status) moves. `state` is the current state, only when asked for (the page shows it
 * unless a past checkpoint is open). `at` is when it was read: facts' freshness is judged against it.
 */
export type RunSnapshot = {
  runId: string;
  status: RunStatus;
  stateSeq: number;
  at: string;
  state: RunState | null;
  recovery: RecoveryView;
  checkpoints: CheckpointSummary[];
  /** Older checkpoints exist than the list holds (its newest page: see CHECKPOINT_PAGE_SIZE). */
  hasOlderCheckpoints: boolean;
};

export type RunDetail = {
  kind: "readable";
  run: RunRecord;
  /** One page of the trace; the timeline loads the rest (and what comes next) by seq. */
  trace: TraceWindow;
  traceSummary: TraceSummary;
  snapshot: RunSnapshot;
  /** The checkpoint asked for, with its state; null shows the current state (snapshot.state). */
  shownCheckpoint: CheckpointWithState | null;
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
  trace: TraceWindow;
  traceSummary: TraceSummary;
  /** The newest checkpoints (see CHECKPOINT_PAGE_SIZE); hasOlderCheckpoints when there are more. */
  checkpoints: CheckpointSummary[];
  hasOlderCheckpoints: boolean;
};

export type RunDetailQuery = { checkpoint?: number; compareFrom?: number; compareTo?: number };

/** The run through the runtime's store; "unreadable" when its stored state fails its schema. */
async function loadRun(runId: string): Promise<RunRecord | { unreadable: string } | null> {
  try {
    return await getRuntime().store.getRun(runId);
  } catch (error) {
    if (isAppError(error, "INVALID_STATE")) return { unreadable: error.message };
    throw error;
  }
}

/** The version of the run's agent this deployment runs, when it is not the one the run started with. */
export function deployedVersionOf(run: Pick<RunRecord, "agentSlug" | "agentVersion">): string | undefined {
  const loaded = getRuntime().context.agents.get(run.agentSlug)?.version;
  return loaded !== undefined && loaded !== run.agentVersion ? loaded : undefined;
}

/** The runtime's recoveryView, for a run already loaded (the runtime's own would read the run again). */
async function recoveryOf(run: RunRecord): Promise<RecoveryView> {
  const { store, context } = getRuntime();
  const [intents, packets] = await Promise.all([store.listIntents(run.id), store.findPackets({ runId: run.id })]);
  return buildRecoveryView(run, intents, packets, context.clock.now(), context.agents.get(run.agentSlug)?.version);
}

async function snapshotOf(run: RunRecord, withState: boolean): Promise<RunSnapshot> {
  const [recovery, { checkpoints, hasOlder }] = await Promise.all([
    recoveryOf(run),
    findCheckpointSummaries(getDb(), run.id),
  ]);
  return {
    runId: run.id,
    status: run.status,
    stateSeq: run.stateSeq,
    at: getRuntime().context.clock.now().toISOString(),
    state: withState ? run.state : null,
    recovery,
    checkpoints,
    hasOlderCheckpoints: hasOlder,
  };
}

/** The parts of the run page that change with each checkpoint; NOT_FOUND, or INVALID_STATE when the state cannot be read. */
export async function getRunSnapshot(runId: string, opts: { withState: boolean }): Promise<RunSnapshot> {
  const run = await getRuntime().store.getRun(runId);
  if (!run)
    throw new AppError("NOT_FOUND", { message: `run ${runId} not found`, userMessage: "That run does not exist." });
  return snapshotOf(run, opts.withState);
}

/** Everything the run page shows, or null when there is no such run. */
export async function getRunDetail(
  runId: string,
  query: RunDetailQuery = {},
): Promise<RunDetail | UnreadableRunDetail | null> {
  const run = await loadRun(runId);
  if (!run) return null;
  if ("unreadable" in run) return getUnreadableRunDetail(runId, run.unreadable);
  const db = getDb();
  const checkpointOf = (seq: number | undefined) =>
    seq === undefined ? Promise.resolve(null) : findCheckpoint(db, runId, seq);
  const isComparing = query.compareFrom !== undefined && query.compareTo !== undefined;
  const [trace, traceSummary, snapshot, shownCheckpoint, from, to] = await Promise.all([
    findOpeningTraceWindow(db, { id: runId, eventSeq: run.eventSeq, isLive: !TERMINAL_STATUSES.includes(run.status) }),
    findTraceSummary(db, runId),
    snapshotOf(run, query.checkpoint === undefined),
    checkpointOf(query.checkpoint),
    checkpointOf(isComparing ? query.compareFrom : undefined),
    checkpointOf(isComparing ? query.compareTo : undefined),
  ]);
  return {
    kind: "readable",
    run,
    trace,
    traceSummary,
    // A checkpoint asked for that does not exist: the current state is shown instead.
    snapshot: shownCheckpoint ? snapshot : { ...snapshot, state: run.state },
    shownCheckpoint,
    isCheckpointMissing: query.checkpoint !== undefined && !shownCheckpoint,
    compare: from && to ? { from, to } : null,
  };
}

/** The run page's facts that do not need the state: the run's row, its trace and its checkpoints' places. */
async function getUnreadableRunDetail(runId: string, stateError: string): Promise<UnreadableRunDetail | null> {
  const db = getDb();
  const row = await db.run.findUnique({ where: { id: runId } });
  if (!row) return null;
  const isLive = !TERMINAL_STATUSES.includes(row.status as RunStatus);
  const [[run], trace, traceSummary, { checkpoints, hasOlder }] = await Promise.all([
    toRunRecords(db, [row], toListedRunRecord),
    findOpeningTraceWindow(db, { id: runId, eventSeq: row.eventSeq, isLive }),
    findTraceSummary(db, runId),
    findCheckpointSummaries(db, runId),
  ]);
  return {
    kind: "unreadable",
    run,
    stateError,
    storedState: row.state,
    trace,
    traceSummary,
    checkpoints,
    hasOlderCheckpoints: hasOlder,
  };
}
