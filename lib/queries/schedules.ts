import type { Db } from "@/lib/db";
import { AppError } from "@/lib/runtime/errors";
import { nextTick, parseCron } from "@/lib/schedules/cron";

// What the API, the CLI and the console show of a schedule: its settings, its next ticks and its fires.

type ScheduleRow = Awaited<ReturnType<Db["schedule"]["findUniqueOrThrow"]>>;
type FireRow = Awaited<ReturnType<Db["scheduleFire"]["findUniqueOrThrow"]>>;

export type ScheduleView = ReturnType<typeof presentSchedule>;
export type ScheduleFireView = ReturnType<typeof presentFire>;

/** The next `count` ticks from nextFireAt on (none while paused). */
export function upcomingTicks(row: Pick<ScheduleRow, "cron" | "timeZone" | "nextFireAt">, count = 3): Date[] {
  if (!row.nextFireAt) return [];
  const spec = parseCron(row.cron, row.timeZone);
  const ticks = [row.nextFireAt];
  while (ticks.length < count) {
    const next = nextTick(spec, ticks.at(-1)!);
    if (!next) break;
    ticks.push(next);
  }
  return ticks;
}

export function presentSchedule(row: ScheduleRow) {
  return {
    id: row.id,
    name: row.name,
    agent: row.agent,
    input: JSON.parse(row.input) as unknown,
    cron: row.cron,
    timeZone: row.timeZone,
    overlap: row.overlap,
    catchUpSeconds: row.catchUpSeconds,
    paused: row.paused,
    nextFireAt: row.nextFireAt?.toISOString() ?? null,
    upcoming: upcomingTicks(row).map((t) => t.toISOString()),
    createdBy: row.createdBy,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

export function presentFire(row: FireRow) {
  return {
    tick: row.tick.toISOString(),
    outcome: row.outcome,
    runId: row.runId,
    detail: row.detail,
    firedAt: row.firedAt?.toISOString() ?? null,
  };
}

export async function listSchedules(
  db: Db,
  opts: { limit?: number } = {},
): Promise<Array<ScheduleView & { lastFire: ScheduleFireView | null }>> {
  const rows = await db.schedule.findMany({ orderBy: [{ name: "asc" }], take: Math.min(opts.limit ?? 200, 500) });
  const last = await Promise.all(
    rows.map((r) => db.scheduleFire.findFirst({ where: { scheduleId: r.id }, orderBy: { tick: "desc" } })),
  );
  return rows.map((row, i) => ({ ...presentSchedule(row), lastFire: last[i] ? presentFire(last[i]) : null }));
}

/** A schedule and its newest fires (history), newest first. */
export async function getScheduleDetail(db: Db, id: string, opts: { fires?: number } = {}) {
  const row = await db.schedule.findUnique({ where: { id } });
  if (!row)
    throw new AppError("NOT_FOUND", {
      message: `schedule ${id} not found`,
      userMessage: "That schedule does not exist.",
    });
  const fires = await db.scheduleFire.findMany({
    where: { scheduleId: id },
    orderBy: { tick: "desc" },
    take: Math.min(opts.fires ?? 50, 500),
  });
  return { ...presentSchedule(row), fires: fires.map(presentFire) };
}

/** The newest fires of every schedule, with the schedule's name: the console's history. */
export async function recentFires(db: Db, opts: { limit?: number } = {}) {
  const rows = await db.scheduleFire.findMany({
    orderBy: [{ createdAt: "desc" }, { tick: "desc" }],
    take: Math.min(opts.limit ?? 50, 500),
    include: { schedule: { select: { name: true } } },
  });
  return rows.map((row) => ({ ...presentFire(row), id: row.id, schedule: row.schedule.name }));
}
