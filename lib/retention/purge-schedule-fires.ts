// Retention of schedule history: a ScheduleFire row whose tick is older than the retention period is
// deleted, except a schedule's newest `keep` fires, whatever their age — a schedule that fires once a
// month still shows what it did last — and pending fires, which are work not yet done (the ticker
// starts their run). Age and "newest" both read the tick, the order the schedule's history is shown in.
// Bounded like the run purge: schedules a page at a time, rows deleted at most `batchSize` per statement.
import type { Db } from "@/lib/db";

export type PurgeScheduleFiresOptions = {
  now: Date;
  /** Fires whose tick is older than this many days are deleted; 0 (or less) keeps everything forever. */
  retentionDays: number;
  /** The newest fires of each schedule kept whatever their age. */
  keep?: number;
  /** Schedules read per page, and rows deleted per statement. */
  batchSize?: number;
  /** Checked between schedules: stop early (the next purge finishes the work). */
  signal?: AbortSignal;
};

export const DEFAULT_KEPT_FIRES = 100;
const DAY_MS = 24 * 60 * 60 * 1000;
const SETTLED = { not: "pending" };

/** Returns how many fires it deleted. */
export async function purgeScheduleFires(db: Db, opts: PurgeScheduleFiresOptions): Promise<number> {
  if (!(opts.retentionDays > 0)) return 0;
  const keep = opts.keep ?? DEFAULT_KEPT_FIRES;
  const batchSize = opts.batchSize ?? 500;
  for (const [name, value] of [
    ["keep", keep],
    ["batchSize", batchSize],
  ] as const) {
    if (!Number.isInteger(value) || value < 1)
      throw new RangeError(`${name} must be a positive whole number, got ${value}`);
  }
  const cutoff = new Date(opts.now.getTime() - opts.retentionDays * DAY_MS);

  let deleted = 0;
  let after: string | null = null;
  while (!opts.signal?.aborted) {
    // Only schedules with something old enough to delete (an EXISTS on the fires' (scheduleId, tick) index).
    const page: Array<{ id: string }> = await db.schedule.findMany({
      where: { fires: { some: { tick: { lt: cutoff }, outcome: SETTLED } }, ...(after ? { id: { gt: after } } : {}) },
      orderBy: { id: "asc" },
      take: batchSize,
      select: { id: true },
    });
    for (const { id } of page) {
      if (opts.signal?.aborted) break;
      deleted += await purgeOneSchedule(db, id, { cutoff, keep, batchSize });
    }
    if (page.length < batchSize) break;
    after = page[page.length - 1].id;
  }
  return deleted;
}

async function purgeOneSchedule(
  db: Db,
  scheduleId: string,
  opts: { cutoff: Date; keep: number; batchSize: number },
): Promise<number> {
  // The oldest of the newest `keep` fires: everything from it on stays.
  const [oldestKept] = await db.scheduleFire.findMany({
    where: { scheduleId },
    orderBy: { tick: "desc" },
    skip: opts.keep - 1,
    take: 1,
    select: { tick: true },
  });
  if (!oldestKept) return 0; // no more than `keep` fires in all
  const before = oldestKept.tick < opts.cutoff ? oldestKept.tick : opts.cutoff;
  let deleted = 0;
  for (;;) {
    const ids = await db.scheduleFire.findMany({
      where: { scheduleId, tick: { lt: before }, outcome: SETTLED },
      orderBy: { tick: "asc" },
      take: opts.batchSize,
      select: { id: true },
    });
    if (ids.length === 0) break;
    const { count } = await db.scheduleFire.deleteMany({ where: { id: { in: ids.map((f) => f.id) } } });
    deleted += count;
    if (ids.length < opts.batchSize) break;
  }
  return deleted;
}
