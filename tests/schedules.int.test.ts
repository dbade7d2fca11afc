import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { fireDueSchedules, scheduleRunKey } from "../lib/schedules/fire-schedules";
import {
  createSchedule,
  deleteSchedule,
  pauseSchedule,
  resumeSchedule,
  updateSchedule,
} from "../lib/commands/manage-schedules";
import { scriptedAgent } from "./support/agents";
import { createTestRuntime, expectError, manualClock, providers, uid } from "./support/runtime";

// Schedules on both databases, with a clock the test moves: ticks fire once however many workers pass
// at once; overlap, catch-up, pause and crash recovery; every change audited in its own transaction.

const START = new Date("2026-03-02T10:00:30Z");
const minute = (n: number) => new Date(Date.UTC(2026, 2, 2, 10, n));

describe.each(providers())("schedules [%s]", (_provider, url) => {
  const clock = manualClock(START);
  const agent = { ...scriptedAgent(uid("sched"), [], []), input: z.object({ note: z.string() }) };
  let t: ReturnType<typeof createTestRuntime>;
  const deps = () => ({ db: t.db, runtime: t.runtime });
  const pass = (owner = "w1") => fireDueSchedules({ ...deps(), owner, now: clock.now });
  const by = { by: "ops@test", via: "test" };
  const fires = (scheduleId: string) => t.db.scheduleFire.findMany({ where: { scheduleId }, orderBy: { tick: "asc" } });
  const runsOf = (scheduleId: string) =>
    t.db.run.findMany({
      where: { idempotencyKey: { startsWith: `schedule:${scheduleId}:` } },
      orderBy: { createdAt: "asc" },
    });
  const create = (extra: Record<string, unknown> = {}) =>
    createSchedule(
      deps(),
      { name: uid("s"), agent: agent.slug, input: { note: "hi" }, cron: "* * * * *", ...extra },
      by,
    );

  beforeAll(() => {
    t = createTestRuntime(url, { agents: [agent], clock });
  });
  afterAll(async () => {
    await t.close();
  });

  it("refuses what could never fire or start a run, naming the field", async () => {
    expect((await expectError(create({ cron: "61 * * * *" }), "INVALID_INPUT")).fieldErrors.cron[0]).toMatch(
      /not a minute/,
    );
    expect((await expectError(create({ timeZone: "Nowhere/Else" }), "INVALID_INPUT")).fieldErrors.timeZone[0]).toMatch(
      /IANA/,
    );
    expect((await expectError(create({ cron: "0 0 30 feb *" }), "INVALID_INPUT")).fieldErrors.cron[0]).toMatch(
      /never fires/,
    );
    expect((await expectError(create({ agent: "no-such-agent" }), "INVALID_INPUT")).fieldErrors.agent).toBeDefined();
    expect(
      (await expectError(create({ input: { note: 5 } }), "INVALID_INPUT")).fieldErrors["input.note"],
    ).toBeDefined();
    expect((await expectError(create({ overlap: "sometimes" }), "INVALID_INPUT")).fieldErrors.overlap).toBeDefined();
  });

  it("writes every change with its audit row; the next tick follows the cron and time zone", async () => {
    clock.set(START);
    const s = await create({ cron: "0 9 * * *", timeZone: "Europe/Berlin" });
    expect(s.nextFireAt?.toISOString()).toBe("2026-03-03T08:00:00.000Z"); // 09:00 CET
    await pauseSchedule(deps(), s.id, by);
    expect((await t.db.schedule.findUniqueOrThrow({ where: { id: s.id } })).nextFireAt).toBeNull();
    await resumeSchedule(deps(), s.id, by);
    await updateSchedule(deps(), s.id, { overlap: "queue" }, by);
    await deleteSchedule(deps(), s.id, by);
    const audit = await t.db.auditLog.findMany({ where: { target: s.id }, orderBy: { at: "asc" } });
    expect(audit.map((a) => a.action).sort()).toEqual(
      ["schedules.create", "schedules.delete", "schedules.pause", "schedules.resume", "schedules.update"].sort(),
    );
    expect(audit.every((a) => a.actor === "ops@test")).toBe(true);
    // A change that fails writes neither the change nor an audit row.
    const other = await create();
    await expectError(updateSchedule(deps(), other.id, { cron: "nope" }, by), "INVALID_INPUT");
    expect(await t.db.auditLog.count({ where: { target: other.id } })).toBe(1);
  });

  it("fires a due tick once however many workers pass at the same time, with the tick's idempotency key", async () => {
    clock.set(START);
    const s = await create();
    expect(s.nextFireAt).toEqual(minute(1));
    await Promise.all(Array.from({ length: 3 }, (_, i) => pass(`w${i}`)));
    expect(await fires(s.id)).toEqual([]); // not due yet
    clock.set(new Date(minute(1).getTime() + 2000));
    await Promise.all(Array.from({ length: 6 }, (_, i) => pass(`w${i}`)));
    await Promise.all(Array.from({ length: 6 }, (_, i) => pass(`w${i}`)));
    const [fire, ...more] = await fires(s.id);
    expect(more).toEqual([]);
    expect(fire).toMatchObject({ tick: minute(1), outcome: "started" });
    const runs = await runsOf(s.id);
    expect(runs.map((r) => [r.id, r.idempotencyKey, r.startedBy])).toEqual([
      [fire.runId, scheduleRunKey(s.id, minute(1)), `schedule:${s.id}`],
    ]);
    expect(JSON.parse(runs[0].input)).toEqual({ note: "hi" });
    expect((await t.db.schedule.findUniqueOrThrow({ where: { id: s.id } })).nextFireAt).toEqual(minute(2));
  });

  it("skip: a tick while the previous run is active is recorded as skipped; cancel: the previous run is cancelled", async () => {
    clock.set(START);
    const skipper = await create({ overlap: "skip" });
    const canceller = await create({ overlap: "cancel" });
    clock.set(new Date(minute(1).getTime() + 1000));
    await pass();
    clock.set(new Date(minute(2).getTime() + 1000));
    await pass();
    // No worker ran: the first runs are still queued, so still active.
    const skipped = await fires(skipper.id);
    expect(skipped.map((f) => f.outcome)).toEqual(["started", "skipped"]);
    expect(skipped[1].detail).toContain(skipped[0].runId);
    expect(await runsOf(skipper.id)).toHaveLength(1);
    const cancelled = await fires(canceller.id);
    expect(cancelled.map((f) => f.outcome)).toEqual(["started", "started"]);
    expect((await t.runtime.getRun(cancelled[0].runId!)).status).toBe("CANCELLED");
    expect((await t.runtime.getRun(cancelled[1].runId!)).status).toBe("QUEUED");
  });

  it("queue: ticks wait in order for the active run; after downtime only the catch-up window fires, the rest is one missed row", async () => {
    clock.set(START);
    const s = await create({ overlap: "queue", catchUpSeconds: 180 });
    clock.set(new Date(minute(10).getTime() + 30_000)); // down since 10:00:30; the window reaches back to 10:07:30
    await pass();
    let history = await fires(s.id);
    expect(history.map((f) => [f.tick.toISOString(), f.outcome])).toEqual([
      [minute(7).toISOString(), "missed"],
      [minute(8).toISOString(), "started"],
      [minute(9).toISOString(), "pending"],
      [minute(10).toISOString(), "pending"],
    ]);
    expect(history[0].detail).toMatch(/^7 tick/);
    await t.runtime.cancelRun({ runId: history[1].runId!, by: "ops@test" });
    await pass();
    history = await fires(s.id);
    expect(history.map((f) => f.outcome)).toEqual(["missed", "started", "started", "pending"]);
    expect(await runsOf(s.id)).toHaveLength(2);
  });

  it("paused: nothing fires, and resuming does not catch up the paused time", async () => {
    clock.set(START);
    const s = await create({ catchUpSeconds: 3600 });
    await pauseSchedule(deps(), s.id, by);
    clock.set(new Date(minute(5).getTime() + 1000));
    await pass();
    expect(await fires(s.id)).toEqual([]);
    await resumeSchedule(deps(), s.id, by);
    expect((await t.db.schedule.findUniqueOrThrow({ where: { id: s.id } })).nextFireAt).toEqual(minute(6));
  });

  it("a worker that died between starting a fire's run and recording it: the next pass records that run, it starts no second", async () => {
    clock.set(START);
    const s = await create();
    clock.set(new Date(minute(1).getTime() + 1000));
    // What the dead worker left: the fire pending, its run already started under the tick's key.
    await t.db.scheduleFire.create({ data: { id: uid("sfi"), scheduleId: s.id, tick: minute(1), outcome: "pending" } });
    await t.db.schedule.update({
      where: { id: s.id },
      data: { nextFireAt: minute(2), claimedBy: "dead", claimedUntil: new Date(minute(1).getTime() + 500) },
    });
    const { run } = await t.runtime.startRun({
      agent: agent.slug,
      input: { note: "hi" },
      idempotencyKey: scheduleRunKey(s.id, minute(1)),
    });
    await pass("w2");
    const [fire] = await fires(s.id);
    expect(fire).toMatchObject({ outcome: "started", runId: run.id });
    expect(await runsOf(s.id)).toHaveLength(1);
  });

  it("an agent that no longer takes the schedule's input: the fire fails with the reason, the schedule goes on", async () => {
    clock.set(START);
    const s = await create();
    await t.db.schedule.update({ where: { id: s.id }, data: { input: JSON.stringify({ note: 42 }) } });
    clock.set(new Date(minute(1).getTime() + 1000));
    await pass();
    const [fire] = await fires(s.id);
    expect(fire.outcome).toBe("failed");
    expect(fire.detail).toMatch(/input/);
    expect((await t.db.schedule.findUniqueOrThrow({ where: { id: s.id } })).nextFireAt).toEqual(minute(2));
  });
});
