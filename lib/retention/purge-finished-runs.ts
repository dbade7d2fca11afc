// Retention (TETHER_RETENTION_DAYS): a run that finished (COMPLETED, FAILED, CANCELLED) longer ago than
// the period is compacted — every checkpoint but the last is deleted (the final state stays inspectable;
// the Run row keeps it too) and so is every trace event that is not audit (lib/retention/audit-events.ts).
// Effect intents, decision packets, approvals and signals are kept whole: they are the audit.
// Bounded: runs are read a page at a time and rows deleted at most `batchSize` per statement, each
// statement its own transaction, so a backlog never becomes one giant transaction. Idempotent: a
// compacted run is marked (Run.compactedAt) and not read again — unless it ran again after that (a retry)
// and finished again, when its newer history is compacted in turn.
// A child run (Run.spawnedByRunId) is compacted only once its parent has finished too: while the parent
// runs, its trace links to the child's whole history; after that both age out on their own clocks.
import { tryParseJson } from "@/lib/client/json";
import type { Db } from "@/lib/db";
import { TERMINAL_STATUSES } from "@/lib/runtime/types";
import { CONDITIONAL_EVENT_TYPES, TRACE_ONLY_EVENT_TYPES, isAuditEvent } from "./audit-events";

export type PurgeFinishedRunsOptions = {
  now: Date;
  /** Runs finished longer ago than this are compacted; 0 (or less) keeps everything forever. */
  retentionDays: number;
  /** Runs read per page, and rows deleted per statement. */
  batchSize?: number;
  /** Checked between runs: stop early (a run is never left half-marked; the next purge finishes it). */
  signal?: AbortSignal;
};

export type PurgeResult = { runs: number; checkpointsDeleted: number; eventsDeleted: number };

export const DEFAULT_PURGE_BATCH_SIZE = 500;
const DAY_MS = 24 * 60 * 60 * 1000;

type RunHead = { id: string; createdAt: Date; updatedAt: Date; spawnedByRunId: string | null };

export async function purgeFinishedRuns(db: Db, opts: PurgeFinishedRunsOptions): Promise<PurgeResult> {
  const result: PurgeResult = { runs: 0, checkpointsDeleted: 0, eventsDeleted: 0 };
  if (!(opts.retentionDays > 0)) return result;
  const batchSize = opts.batchSize ?? DEFAULT_PURGE_BATCH_SIZE;
  if (!Number.isInteger(batchSize) || batchSize < 1)
    throw new RangeError(`batchSize must be a positive whole number, got ${batchSize}`);
  const cutoff = new Date(opts.now.getTime() - opts.retentionDays * DAY_MS);

  let after: RunHead | null = null;
  while (!opts.signal?.aborted) {
    const page: RunHead[] = await findCompactableRuns(db, cutoff, after, batchSize);
    for (const run of page) {
      if (opts.signal?.aborted) break;
      if (await hasActiveParent(db, run)) continue;
      const counts = await compactRun(db, run, { now: opts.now, batchSize });
      result.checkpointsDeleted += counts.checkpointsDeleted;
      result.eventsDeleted += counts.eventsDeleted;
      if (counts.isMarked) result.runs += 1;
    }
    if (page.length < batchSize) break;
    after = page[page.length - 1];
  }
  return result;
}

/** Finished before the cutoff and not compacted since; paged in (createdAt, id) order. A run cannot have
 *  been updated before it was created, so createdAt < cutoff narrows the read to the (status, createdAt) index. */
function findCompactableRuns(db: Db, cutoff: Date, after: RunHead | null, take: number): Promise<RunHead[]> {
  return db.run.findMany({
    where: {
      status: { in: [...TERMINAL_STATUSES] },
      createdAt: { lt: cutoff },
      updatedAt: { lt: cutoff },
      OR: [{ compactedAt: null }, { compactedAt: { lt: db.run.fields.updatedAt } }],
      ...(after
        ? {
            AND: [
              { OR: [{ createdAt: { gt: after.createdAt } }, { createdAt: after.createdAt, id: { gt: after.id } }] },
            ],
          }
        : {}),
    },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    take,
    select: { id: true, createdAt: true, updatedAt: true, spawnedByRunId: true },
  });
}

/** A child run whose parent still runs (and waits for it, or reads its trace) is left whole for now. */
async function hasActiveParent(db: Db, run: RunHead): Promise<boolean> {
  if (!run.spawnedByRunId) return false;
  const parent = await db.run.findUnique({ where: { id: run.spawnedByRunId }, select: { status: true } });
  return parent !== null && !(TERMINAL_STATUSES as readonly string[]).includes(parent.status);
}

async function compactRun(db: Db, run: RunHead, opts: { now: Date; batchSize: number }) {
  const checkpointsDeleted = await deleteIntermediateCheckpoints(db, run.id, opts.batchSize);
  const eventsDeleted = await deleteTraceOnlyEvents(db, run.id, opts.batchSize);
  // Compare-and-set on updatedAt: a run retried meanwhile is not marked (its new history is not compacted
  // yet; it comes back once it finished again). updatedAt is written back as it was: housekeeping is not
  // an update of the run.
  const { count } = await db.run.updateMany({
    where: { id: run.id, status: { in: [...TERMINAL_STATUSES] }, updatedAt: run.updatedAt },
    data: { compactedAt: opts.now, updatedAt: run.updatedAt },
  });
  return { checkpointsDeleted, eventsDeleted, isMarked: count === 1 };
}

/** Every checkpoint but the last (the run's final state), `batchSize` seq numbers per statement. */
async function deleteIntermediateCheckpoints(db: Db, runId: string, batchSize: number): Promise<number> {
  const { _min, _max } = await db.checkpoint.aggregate({ where: { runId }, _min: { seq: true }, _max: { seq: true } });
  if (_min.seq === null || _max.seq === null) return 0;
  let deleted = 0;
  for (let from = _min.seq; from < _max.seq; from += batchSize) {
    const { count } = await db.checkpoint.deleteMany({
      where: { runId, seq: { gte: from, lt: Math.min(from + batchSize, _max.seq) } },
    });
    deleted += count;
  }
  return deleted;
}

/** Trace-only events, in windows of `batchSize` seq numbers: those dropped by type in one statement,
 *  those dropped by their data (a pure read's tool.call, an allowing permission check) read and chosen. */
async function deleteTraceOnlyEvents(db: Db, runId: string, batchSize: number): Promise<number> {
  const { _min, _max } = await db.traceEvent.aggregate({ where: { runId }, _min: { seq: true }, _max: { seq: true } });
  if (_min.seq === null || _max.seq === null) return 0;
  let deleted = 0;
  for (let from = _min.seq; from <= _max.seq; from += batchSize) {
    const window = { gte: from, lt: from + batchSize };
    const byType = await db.traceEvent.deleteMany({
      where: { runId, seq: window, type: { in: [...TRACE_ONLY_EVENT_TYPES] } },
    });
    const conditional = await db.traceEvent.findMany({
      where: { runId, seq: window, type: { in: [...CONDITIONAL_EVENT_TYPES] } },
      select: { seq: true, type: true, data: true },
    });
    // Unparseable data is kept (isAuditEvent keeps what it cannot read).
    const dropped = conditional.filter((e) => !isAuditEvent(e.type, tryParseJson(e.data) ?? null)).map((e) => e.seq);
    const byData =
      dropped.length > 0 ? await db.traceEvent.deleteMany({ where: { runId, seq: { in: dropped } } }) : { count: 0 };
    deleted += byType.count + byData.count;
  }
  return deleted;
}
