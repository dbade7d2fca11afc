import { inWorkspace } from "@/lib/runtime/workspace";
import { newRecordId } from "@/lib/runtime/record-id";
import { startRun } from "@/lib/commands/start-run";
import type { Db } from "@/lib/db";
import type { Logger, Runtime } from "@/lib/runtime";
import { isAppError } from "@/lib/runtime/errors";
import { TERMINAL_STATUSES } from "@/lib/runtime/types";
import { nextTick, parseCron, ticksBetween, type CronSpec } from "./cron";
import type { OverlapPolicy } from "./schedule-input";

// Firing schedules: any number of workers run this; each tick of a schedule fires once.
//  1. A worker claims a schedule (a short lease on its row) so one worker at a time works on it.
//  2. Its due ticks become ScheduleFire rows, in the same transaction that moves the schedule's
//     nextFireAt past them by compare-and-set: (scheduleId, tick) is unique, and a worker that read
//     the old nextFireAt changes nothing.
//  3. Each pending fire starts its run with the idempotency key schedule:<id>:<tick>, then records the
//     run. A worker killed between the two leaves the fire pending; the next claimer starts it again
//     and the key hands back the run that already exists, so a tick never starts two runs.

/** A tick this late is still on time: the ticker polls, and a busy worker may be a few seconds behind. */
export const LATE_TOLERANCE_MS = 15_000;
/** The most ticks one pass records (the newest); a catch-up window holding more fires only these. */
const MAX_FIRES_PER_PASS = 1000;
/** Past this many missed ticks, the missed row says "at least". */
const MAX_COUNTED_MISSES = 10_000;

/** Where crash tests stop a worker: its ticks recorded but no run started; a run started but its fire not yet settled. */
export type ScheduleFaultPoint = "after-record" | "after-start";

export type FireDeps = {
  db: Db;
  runtime: Runtime;
  owner: string;
  now?: () => Date;
  claimMs?: number;
  logger?: Logger;
  onFaultPoint?: (point: ScheduleFaultPoint, info: { scheduleId: string; tick?: Date }) => Promise<void>;
};
type ScheduleRow = Awaited<ReturnType<Db["schedule"]["findUniqueOrThrow"]>>;

export const scheduleRunKey = (scheduleId: string, tick: Date) => `schedule:${scheduleId}:${tick.toISOString()}`;
const ACTIVE = { notIn: [...TERMINAL_STATUSES] };

/** One pass: every schedule that is due or has fires waiting, claimed one at a time. Returns the runs it started. */
export async function fireDueSchedules(deps: FireDeps): Promise<{ started: number }> {
  const now = (deps.now ?? deps.runtime.context.clock.now)();
  const due = await deps.db.schedule.findMany({
    where: { paused: false, nextFireAt: { lte: now } },
    select: { id: true },
    orderBy: { nextFireAt: "asc" },
    take: 100,
  });
  const waiting = await deps.db.scheduleFire.findMany({
    where: { outcome: "pending", schedule: { paused: false } },
    select: { scheduleId: true },
    distinct: ["scheduleId"],
    take: 100,
  });
  let started = 0;
  for (const id of new Set([...due.map((s) => s.id), ...waiting.map((f) => f.scheduleId)])) {
    const schedule = await claim(deps, id, now);
    if (!schedule) continue;
    try {
      if (schedule.nextFireAt && schedule.nextFireAt <= now && (await recordDueTicks(deps.db, schedule, now))) {
        await deps.onFaultPoint?.("after-record", { scheduleId: id, tick: schedule.nextFireAt });
      }
      started += await startPendingFires(deps, schedule);
    } catch (error) {
      deps.logger?.error("schedules: firing failed (retried at the next tick)", {
        schedule: id,
        error: error instanceof Error ? error.message : String(error),
      });
    } finally {
      await deps.db.schedule.updateMany({
        where: { id, claimedBy: deps.owner },
        data: { claimedBy: null, claimedUntil: null },
      });
    }
  }
  return { started };
}

async function claim(deps: FireDeps, id: string, now: Date): Promise<ScheduleRow | null> {
  const until = new Date(now.getTime() + (deps.claimMs ?? 30_000));
  const { count } = await deps.db.schedule.updateMany({
    where: {
      id,
      paused: false,
      OR: [{ claimedUntil: null }, { claimedUntil: { lt: now } }, { claimedBy: deps.owner }],
    },
    data: { claimedBy: deps.owner, claimedUntil: until },
  });
  return count ? deps.db.schedule.findUnique({ where: { id } }) : null;
}

/** The ticks from nextFireAt to now: those within the catch-up window become pending fires, older ones one "missed" row. */
async function recordDueTicks(db: Db, schedule: ScheduleRow, now: Date): Promise<boolean> {
  const first = schedule.nextFireAt!;
  const spec = parseCron(schedule.cron, schedule.timeZone);
  const oldestOnTime = new Date(now.getTime() - Math.max(schedule.catchUpSeconds * 1000, LATE_TOLERANCE_MS));
  const missed = first < oldestOnTime ? countMissed(spec, first, oldestOnTime) : null;
  // Counted from the window's start, not from `first`: a long outage is not walked tick by tick.
  const windowStart = first > oldestOnTime ? first : oldestOnTime;
  const onTime = ticksBetween(spec, new Date(windowStart.getTime() - 1), now, MAX_FIRES_PER_PASS);
  return db.$transaction(async (tx) => {
    const moved = await tx.schedule.updateMany({
      where: { id: schedule.id, nextFireAt: first, paused: false },
      data: { nextFireAt: nextTick(spec, now) },
    });
    if (!moved.count) return false; // another worker recorded these ticks, or the schedule changed
    const rows = onTime.map((tick) => ({ id: fireId(), scheduleId: schedule.id, tick, outcome: "pending" }));
    if (missed)
      rows.unshift({
        id: fireId(),
        scheduleId: schedule.id,
        tick: missed.newest,
        outcome: "missed",
        detail: `${missed.count}${missed.count >= MAX_COUNTED_MISSES ? "+" : ""} tick(s) older than the catch-up window (${schedule.catchUpSeconds}s) were not fired`,
      } as (typeof rows)[number]);
    if (rows.length) await tx.scheduleFire.createMany({ data: rows });
    return true;
  });
}

function countMissed(spec: CronSpec, first: Date, before: Date): { count: number; newest: Date } {
  let count = 0;
  let newest = first;
  for (let t: Date | null = first; t && t < before && count < MAX_COUNTED_MISSES; t = nextTick(spec, t)) {
    count++;
    newest = t;
  }
  return { count, newest };
}

const fireId = () => newRecordId("sfi");

/** The pending fires in tick order, each settled by the overlap policy against the schedule's runs still active. */
async function startPendingFires(deps: FireDeps, schedule: ScheduleRow): Promise<number> {
  // Its runs are its workspace's, and so are the runs it looks at (lib/workspaces/scope.ts).
  return inWorkspace(schedule.workspaceId, () => startFiresInWorkspace(deps, schedule));
}

async function startFiresInWorkspace(deps: FireDeps, schedule: ScheduleRow): Promise<number> {
  const { db } = deps;
  const fires = await db.scheduleFire.findMany({
    where: { scheduleId: schedule.id, outcome: "pending" },
    orderBy: { tick: "asc" },
    take: 100,
  });
  let started = 0;
  for (const fire of fires) {
    const key = scheduleRunKey(schedule.id, fire.tick);
    const active = await db.run.findMany({
      where: { idempotencyKey: { startsWith: `schedule:${schedule.id}:`, not: key }, status: ACTIVE },
      select: { id: true },
    });
    const overlap = schedule.overlap as OverlapPolicy;
    if (active.length && overlap === "skip") {
      await settle(db, fire.id, {
        outcome: "skipped",
        detail: `the previous run ${active.map((r) => r.id).join(", ")} was still active`,
      });
      continue;
    }
    if (active.length && overlap === "queue") break; // waits, in order, for the active run to end
    if (active.length && overlap === "cancel") {
      for (const run of active) {
        await deps.runtime
          .cancelRun({
            runId: run.id,
            by: `schedule:${schedule.id}`,
            reason: `schedule ${schedule.name} fired again (${fire.tick.toISOString()})`,
          })
          .catch((error: unknown) => {
            if (!isAppError(error)) throw error;
          }); // it ended meanwhile
      }
    }
    try {
      const { run } = await startRun(
        { db, runtime: deps.runtime },
        {
          agent: schedule.agent,
          input: JSON.parse(schedule.input),
          idempotencyKey: key,
          startedBy: `schedule:${schedule.id}`,
        },
      );
      await deps.onFaultPoint?.("after-start", { scheduleId: schedule.id, tick: fire.tick });
      await settle(db, fire.id, { outcome: "started", runId: run.id });
      started++;
    } catch (error) {
      // A full queue clears up: the fire stays pending. An agent gone or an input it no longer takes does not.
      if (isAppError(error) && error.code === "RATE_LIMITED") break;
      if (!isAppError(error)) throw error;
      await settle(db, fire.id, { outcome: "failed", detail: error.userMessage });
    }
  }
  return started;
}

async function settle(db: Db, fireId: string, data: { outcome: string; runId?: string; detail?: string }) {
  await db.scheduleFire.updateMany({
    where: { id: fireId, outcome: "pending" },
    data: { ...data, firedAt: new Date() },
  });
}
