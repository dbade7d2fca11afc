// A run's checkpoints, as the run page reads them. Each checkpoint's state is its head plus a prefix of
// the run's entries (lib/store/state-entries.ts), so reading every checkpoint with its state would cost
// steps × state size. The list is metadata (seq, step, when) read without the state column; a state is
// read one checkpoint at a time, when it is shown (the state at a checkpoint, the two sides of a diff).
import type { Db } from "@/lib/db";
import type { Prisma } from "@/lib/generated/sqlite/client";
import type { RunState } from "@/lib/runtime/state";
import { loadStoredState } from "@/lib/store/state-entries";

/** The run page lists the newest this many, and loads older ones a page at a time when asked. */
export const CHECKPOINT_PAGE_SIZE = 50;
const MAX_CHECKPOINT_PAGE_SIZE = 500;

/** A checkpoint's place, without its state (createdAt as an ISO string: it crosses the wire as it is). */
export type CheckpointSummary = { seq: number; step: number; createdAt: string };
export type CheckpointWithState = CheckpointSummary & { state: RunState };

/** The checkpoints, oldest first; hasOlder when older ones were left out of the list. */
export type CheckpointList = { checkpoints: CheckpointSummary[]; hasOlder: boolean };

/** before: only checkpoints older than this seq (the next page down a list); limit: at most this many. */
export type CheckpointRange = { before?: number; limit?: number };

export const checkpointSummarySelect = { seq: true, step: true, createdAt: true } satisfies Prisma.CheckpointSelect;
const checkpointWithStateSelect = {
  ...checkpointSummarySelect,
  state: true,
  entrySeq: true,
} satisfies Prisma.CheckpointSelect;

const toSummary = (row: { seq: number; step: number; createdAt: Date }): CheckpointSummary => ({
  seq: row.seq,
  step: row.step,
  createdAt: row.createdAt.toISOString(),
});

/** The newest `limit` checkpoints of a run (before `before`), oldest first, without their states (the primary key serves it). */
export async function findCheckpointSummaries(
  db: Db,
  runId: string,
  range: CheckpointRange = {},
): Promise<CheckpointList> {
  const limit = Math.min(Math.max(range.limit ?? CHECKPOINT_PAGE_SIZE, 1), MAX_CHECKPOINT_PAGE_SIZE);
  const where = range.before === undefined ? { runId } : { runId, seq: { lt: range.before } };
  const rows = await db.checkpoint.findMany({
    where,
    select: checkpointSummarySelect,
    orderBy: { seq: "desc" },
    take: limit + 1,
  });
  return { checkpoints: rows.slice(0, limit).reverse().map(toSummary), hasOlder: rows.length > limit };
}

/** One checkpoint with its state loaded through the schema (upgraded if older), or null when the run has no such checkpoint. */
export async function findCheckpoint(db: Db, runId: string, seq: number): Promise<CheckpointWithState | null> {
  const row = await db.checkpoint.findUnique({
    where: { runId_seq: { runId, seq } },
    select: checkpointWithStateSelect,
  });
  return row ? { ...toSummary(row), state: await loadStoredState(db, runId, row) } : null;
}
