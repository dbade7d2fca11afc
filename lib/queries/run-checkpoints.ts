// A run's checkpoints, as the run page reads them. Each checkpoint's state is its head plus a prefix of
// the run's entries (lib/store/state-entries.ts), so reading every checkpoint with its state would cost
// steps × state size. The list is metadata (seq, step, when) read without the state column; a state is
// read one checkpoint at a time, when it is shown (the state at a checkpoint, the two sides of a diff).
import type { Db } from "@/lib/db";
import type { Prisma } from "@/lib/generated/sqlite/client";
import type { RunState } from "@/lib/runtime/state";
import { loadStoredState } from "@/lib/store/state-entries";

/** The list holds at most this many, the newest; an older checkpoint still opens by its seq (?checkpoint=). */
export const CHECKPOINT_LIST_LIMIT = 500;

/** A checkpoint's place, without its state (createdAt as an ISO string: it crosses the wire as it is). */
export type CheckpointSummary = { seq: number; step: number; createdAt: string };
export type CheckpointWithState = CheckpointSummary & { state: RunState };

/** The checkpoints, oldest first; hasOlder when older ones were left out of the list. */
export type CheckpointList = { checkpoints: CheckpointSummary[]; hasOlder: boolean };

export const checkpointSummarySelect = { seq: true, step: true, createdAt: true } satisfies Prisma.CheckpointSelect;
const checkpointWithStateSelect = { ...checkpointSummarySelect, state: true, entrySeq: true } satisfies Prisma.CheckpointSelect;

const toSummary = (row: { seq: number; step: number; createdAt: Date }): CheckpointSummary => ({ seq: row.seq, step: row.step, createdAt: row.createdAt.toISOString() });

/** The newest `limit` checkpoints of a run, oldest first, without their states (the primary key serves it). */
export async function findCheckpointSummaries(db: Db, runId: string, limit = CHECKPOINT_LIST_LIMIT): Promise<CheckpointList> {
  const rows = await db.checkpoint.findMany({ where: { runId }, select: checkpointSummarySelect, orderBy: { seq: "desc" }, take: limit + 1 });
  return { checkpoints: rows.slice(0, limit).reverse().map(toSummary), hasOlder: rows.length > limit };
}

/** One checkpoint with its state loaded through the schema (upgraded if older), or null when the run has no such checkpoint. */
export async function findCheckpoint(db: Db, runId: string, seq: number): Promise<CheckpointWithState | null> {
  const row = await db.checkpoint.findUnique({ where: { runId_seq: { runId, seq } }, select: checkpointWithStateSelect });
  return row ? { ...toSummary(row), state: await loadStoredState(db, runId, row) } : null;
}
