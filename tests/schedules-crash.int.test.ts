import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scheduleRunKey } from "../lib/schedules/fire-schedules";
import { createSchedule } from "../lib/commands/manage-schedules";
import { scriptedAgent } from "./support/agents";
import { releaseDeadWorker } from "./support/leases";
import { createTestRuntime, providers, uid } from "./support/runtime";
import { kill, spawnWorker, type WorkerProcess } from "./support/spawn-worker";
import { until } from "./support/until";

// Schedules under SIGKILL, with real worker processes: one is killed holding a tick it recorded but
// never started, the next is killed after starting the tick's run but before recording it, then three
// race for the following ticks. Every tick from the first to the last fires exactly once.

const EVERY_SECOND = "* * * * * *";
// Long, so that no stall of a loaded machine lapses a worker's run lease or schedule claim while it is
// alive (another worker would take over what it holds); a killed worker's are let go by the test instead.
const HOLD_MS = "30000";

describe.each(providers())("schedules under worker kills [%s]", (_provider, url) => {
  const agent = scriptedAgent(uid("sched-crash"), [], []);
  let t: ReturnType<typeof createTestRuntime>;
  const workers: WorkerProcess[] = [];
  /** Kills a worker, then lets go of what it held, as its leases and claims running out would. */
  const killWorker = async (w: WorkerProcess) => {
    const owner = (await w.waitFor("READY")).split(" ")[1];
    await kill(w.child);
    await releaseDeadWorker(t.db, owner);
  };
  const spawn = (env: Record<string, string> = {}) => {
    const w = spawnWorker({
      DATABASE_URL: url,
      WORLD_URL: "http://127.0.0.1:9",
      AGENTS: JSON.stringify([{ kind: "noop", slug: agent.slug }]),
      TETHER_LEASE_MS: HOLD_MS,
      SCHEDULE_TICK_MS: "100",
      SCHEDULE_CLAIM_MS: HOLD_MS,
      ...env,
    });
    workers.push(w);
    return w;
  };

  beforeAll(() => {
    t = createTestRuntime(url, { agents: [agent] });
  });
  afterAll(async () => {
    await Promise.all(workers.map((w) => kill(w.child)));
    await t.close();
  });

  it("each tick fires once: killed after recording a tick, killed after starting its run, then three workers racing", async () => {
    // queue: no tick is skipped because a dead worker still holds the previous run; an hour of catch-up: none is missed.
    const s = await createSchedule(
      { db: t.db, runtime: t.runtime },
      { name: uid("crash"), agent: agent.slug, cron: EVERY_SECOND, overlap: "queue", catchUpSeconds: 3600 },
      { by: "ops@test" },
    );

    const first = spawn({ SCHEDULE_FAULT_AT: "after-record", SCHEDULE_FAULT_FOR: s.id });
    const recorded = await first.waitFor("SCHEDULE_FAULT after-record");
    await killWorker(first);
    const second = spawn({ SCHEDULE_FAULT_AT: "after-start", SCHEDULE_FAULT_FOR: s.id });
    const startedLine = await second.waitFor("SCHEDULE_FAULT after-start");
    await killWorker(second);
    const orphanTick = new Date(startedLine.split(" ")[2]);
    // The run the second worker started and never recorded exists; its fire is still pending.
    expect(await t.db.run.count({ where: { idempotencyKey: scheduleRunKey(s.id, orphanTick) } })).toBe(1);
    expect(
      (
        await t.db.scheduleFire.findUniqueOrThrow({
          where: { scheduleId_tick: { scheduleId: s.id, tick: orphanTick } },
        })
      ).outcome,
    ).toBe("pending");

    const racers = [spawn(), spawn(), spawn()];
    await Promise.all(racers.map((w) => w.waitFor("READY")));
    // Five more ticks after the orphaned one, all settled.
    await until(
      "five more ticks fired",
      async () =>
        (await t.db.scheduleFire.count({
          where: { scheduleId: s.id, tick: { gt: new Date(orphanTick.getTime() + 5000) }, outcome: "started" },
        })) > 0,
      30_000,
    );
    // No further ticks (a schedule without a next tick is never due); the racers settle what is recorded.
    await t.db.schedule.update({ where: { id: s.id }, data: { nextFireAt: null } });
    await until(
      "no fire left pending",
      async () => (await t.db.scheduleFire.count({ where: { scheduleId: s.id, outcome: "pending" } })) === 0,
      30_000,
    );
    await Promise.all(racers.map((w) => kill(w.child)));

    const fires = await t.db.scheduleFire.findMany({ where: { scheduleId: s.id }, orderBy: { tick: "asc" } });
    const runs = await t.db.run.findMany({ where: { idempotencyKey: { startsWith: `schedule:${s.id}:` } } });
    expect(fires[0].tick.toISOString()).toBe(recorded.split(" ")[2]); // the tick the first worker died holding still fired
    expect(fires.length).toBeGreaterThanOrEqual(7);
    // Every second from the first tick to the last, once each, each with its own run.
    fires.forEach((f, i) => expect(f.tick.getTime()).toBe(fires[0].tick.getTime() + i * 1000));
    expect(fires.map((f) => f.outcome)).toEqual(fires.map(() => "started"));
    expect(runs).toHaveLength(fires.length);
    const keyOf = new Map(runs.map((r) => [r.id, r.idempotencyKey]));
    for (const f of fires) expect(keyOf.get(f.runId!)).toBe(scheduleRunKey(s.id, f.tick));
  }, 120_000);
});
