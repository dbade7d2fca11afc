import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { loadConfig } from "../lib/config";
import type { Db } from "../lib/db";
import type { AgentDefinition } from "../lib/runtime";
import { classifyEventType, isAuditEvent } from "../lib/retention/audit-events";
import { deleteRun } from "../lib/commands/delete-run";
import { purgeFinishedRuns } from "../lib/retention/purge-finished-runs";
import { DEFAULT_KEPT_FIRES, purgeScheduleFires } from "../lib/retention/purge-schedule-fires";
import { retentionDaysFromEnv, startRetention } from "../lib/retention/start-retention";
import { refundAgent } from "./support/agents";
import { startRouteServer } from "./support/route-server";
import { createTestRuntime, expectError, grant, providers, uid } from "./support/runtime";
import { createPersonWithToken } from "./support/tokens";
import { worldTools } from "./support/tools";
import { startWorld, type World } from "./support/world";

// Retention: a finished run older than TETHER_RETENTION_DAYS is compacted to its final state and its
// audit (events, intents, packets); anything recent or still going is left alone; a second purge changes
// nothing. A finished run can be deleted with all its data (audited), an active one cannot; the HTTP route
// needs the admin scope.

const DAY = 24 * 60 * 60 * 1000;
const OVER_LIMIT = { path: "amountCents", op: "gt", value: 10_000, effect: "require_approval" } as const;

describe("audit events", () => {
  it("every event type the engine and its store write is on one of the lists", () => {
    const types = new Set<string>();
    for (const dir of ["lib/runtime", "lib/store"]) {
      for (const file of readdirSync(dir).filter((f) => f.endsWith(".ts"))) {
        const source = readFileSync(path.join(dir, file), "utf8");
        for (const m of source.matchAll(/(?:cursor\.event\(|type: )"([a-z]+\.[a-z_]+)"/g)) types.add(m[1]);
      }
    }
    expect(types.size).toBeGreaterThan(20);
    expect([...types].filter((t) => classifyEventType(t) === "unlisted")).toEqual([]);
  });

  it("keeps world-changing calls and refused authority; drops reads, routine grants and reasoning", () => {
    expect(isAuditEvent("tool.call", { tool: "payments.refund", semantics: "idempotent" })).toBe(true);
    expect(isAuditEvent("tool.call", { tool: "orders.get", semantics: "pure-read" })).toBe(false);
    expect(isAuditEvent("permission.checked", { effect: "require_approval" })).toBe(true);
    expect(isAuditEvent("permission.checked", { effect: "deny" })).toBe(true);
    expect(isAuditEvent("permission.checked", { effect: "allow" })).toBe(false);
    expect(isAuditEvent("gate.decided", {})).toBe(true);
    expect(isAuditEvent("model.decision", {})).toBe(false);
    expect(isAuditEvent("something.new", {})).toBe(true); // unlisted: kept until someone decides
    expect(isAuditEvent("tool.call", null)).toBe(true); // unreadable data: kept
  });

  it("TETHER_RETENTION_DAYS: unset or 0 keeps forever; a negative or non-number is refused", () => {
    expect(retentionDaysFromEnv(loadConfig({}))).toBe(0);
    expect(retentionDaysFromEnv(loadConfig({ TETHER_RETENTION_DAYS: " " }))).toBe(0);
    expect(retentionDaysFromEnv(loadConfig({ TETHER_RETENTION_DAYS: "0" }))).toBe(0);
    expect(retentionDaysFromEnv(loadConfig({ TETHER_RETENTION_DAYS: "30" }))).toBe(30);
    expect(() => retentionDaysFromEnv(loadConfig({ TETHER_RETENTION_DAYS: "-1" }))).toThrow(/TETHER_RETENTION_DAYS/);
    expect(() => retentionDaysFromEnv(loadConfig({ TETHER_RETENTION_DAYS: "a month" }))).toThrow(
      /TETHER_RETENTION_DAYS/,
    );
  });

  it("the periodic purge logs a failure and keeps going; retention off schedules nothing", async () => {
    const failing = {
      run: { fields: {}, findMany: () => Promise.reject(new Error("database away")) },
    } as unknown as Db;
    const logger = { info: vi.fn(), warn: vi.fn(), error: vi.fn() };
    const retention = startRetention({ db: failing, retentionDays: 30, logger, firstDelayMs: 60_000 });
    await expect(retention.runOnce()).resolves.toBeUndefined();
    await retention.runOnce();
    expect(logger.error).toHaveBeenCalledTimes(2);
    expect(logger.error.mock.calls[0][1]).toEqual({ error: "database away" });
    await retention.stop();

    const off = startRetention({ db: failing, retentionDays: 0, logger });
    await off.runOnce();
    expect(logger.error).toHaveBeenCalledTimes(2);
    await off.stop();
  });
});

describe.each(providers())("retention [%s]", (_provider, url) => {
  let world: World;
  let t: ReturnType<typeof createTestRuntime>;
  let db: Db;
  const agents: AgentDefinition[] = [];
  const old = () => new Date(Date.now() - 40 * DAY);

  beforeAll(async () => {
    world = await startWorld();
    t = createTestRuntime(url, { agents, tools: worldTools(world.url) });
    db = t.db;
  });
  afterAll(async () => {
    await t.close();
    await world.close();
  });

  const drain = () => t.runtime.createWorker().drain();

  /** A refund over the limit, waiting on its packet: a read, a gate, and (once approved) two effects. */
  async function waitingRefund() {
    const agent = refundAgent(uid("retention-refund"));
    agents.push(agent);
    t.runtime.context.agents.set(agent.slug, agent);
    await grant(t.runtime, agent, { "payments.refund": { conditions: [OVER_LIMIT] } });
    const orderId = uid("order");
    world.orders.set(orderId, { id: orderId, amountCents: 24_000, status: "paid" });
    const { run } = await t.runtime.startRun({
      agent: agent.slug,
      input: { orderId, email: "bob@example.com" },
      startedBy: "sam@example.com",
    });
    await drain();
    const [packet] = await t.store.findPackets({ runId: run.id, status: ["PENDING"] });
    return { runId: run.id, packet };
  }

  async function completedRefund() {
    const { runId, packet } = await waitingRefund();
    await t.runtime.decidePacket({ packetId: packet.id, reviewer: "rita@example.com", input: { decision: "approve" } });
    await drain();
    expect((await t.runtime.getRun(runId)).status).toBe("COMPLETED");
    return { runId, packet };
  }

  /** Moves a run back in time, as if it had finished (or stopped) 40 days ago. */
  const backdate = (runId: string) =>
    db.run.update({ where: { id: runId }, data: { createdAt: old(), updatedAt: old() }, select: { id: true } });

  async function snapshot(runId: string) {
    const [run, checkpoints, events, intents, packets, approvals] = await Promise.all([
      db.run.findUniqueOrThrow({
        where: { id: runId },
        select: { state: true, stateSeq: true, status: true, updatedAt: true, compactedAt: true },
      }),
      db.checkpoint.findMany({ where: { runId }, orderBy: { seq: "asc" } }),
      db.traceEvent.findMany({ where: { runId }, orderBy: { seq: "asc" } }),
      db.effectIntent.findMany({ where: { runId }, orderBy: { id: "asc" } }),
      db.decisionPacket.findMany({ where: { runId }, orderBy: { id: "asc" } }),
      db.packetApproval.findMany({ where: { packet: { runId } }, orderBy: { approver: "asc" } }),
    ]);
    return { run, checkpoints, events, intents, packets, approvals };
  }

  it("compacts a finished run older than the period to its final state and its audit; a second purge changes nothing", async () => {
    const { runId } = await completedRefund();
    await backdate(runId);
    const recent = await completedRefund(); // finished today
    const waiting = await waitingRefund(); // old, but not finished
    await backdate(waiting.runId);
    const before = await snapshot(runId);
    const [recentBefore, waitingBefore] = [await snapshot(recent.runId), await snapshot(waiting.runId)];
    expect(before.checkpoints.length).toBeGreaterThan(2);
    expect(before.events.map((e) => e.type)).toEqual(
      expect.arrayContaining(["model.decision", "tool.call", "permission.checked"]),
    );

    const now = new Date();
    const result = await purgeFinishedRuns(db, { now, retentionDays: 30, batchSize: 2 }); // small batches: many windows and pages
    const after = await snapshot(runId);
    expect(result.runs).toBeGreaterThanOrEqual(1);
    expect(result.checkpointsDeleted).toBeGreaterThanOrEqual(before.checkpoints.length - 1);

    // The final state stays: the last checkpoint, and the Run row's state; the run is marked, not "updated".
    expect(after.checkpoints).toEqual([before.checkpoints.at(-1)]);
    expect(after.checkpoints[0].seq).toBe(before.run.stateSeq);
    expect(after.run).toEqual({ ...before.run, compactedAt: now });
    expect((await t.runtime.getRun(runId)).compactedAt).toEqual(now); // the run page says so

    // Audit events stay, trace detail goes.
    const data = (e: { data: string }) => JSON.parse(e.data) as Record<string, unknown>;
    expect(after.events).toEqual(before.events.filter((e) => isAuditEvent(e.type, data(e))));
    const kept = after.events.map((e) => e.type);
    expect(kept).toEqual(
      expect.arrayContaining([
        "run.created",
        "run.status",
        "run.completed",
        "gate.requested",
        "gate.decided",
        "gate.acting",
        "effect.intent",
      ]),
    );
    expect(kept).not.toContain("model.decision");
    expect(after.events.filter((e) => e.type === "tool.call").map((e) => data(e).tool)).toEqual([
      "payments.refund",
      "mail.send",
    ]);
    const checks = after.events.filter((e) => e.type === "permission.checked").map((e) => data(e).effect);
    expect(checks.length).toBeGreaterThan(0); // the gate's check, and its re-check before acting
    expect(checks.every((effect) => effect === "require_approval")).toBe(true);
    expect(before.events.filter((e) => e.type === "permission.checked").map((e) => data(e).effect)).toContain("allow");
    expect(before.events.length - after.events.length).toBeGreaterThan(0);
    expect(result.eventsDeleted).toBeGreaterThanOrEqual(before.events.length - after.events.length);

    // Intents, packets and approvals are the audit: untouched.
    expect(after.intents).toEqual(before.intents);
    expect(after.intents.map((i) => i.tool)).toEqual(expect.arrayContaining(["payments.refund", "mail.send"]));
    expect(after.packets).toEqual(before.packets);
    expect(after.approvals).toEqual(before.approvals);
    // The run still opens: its recovery view is built from what was kept.
    expect((await t.runtime.recoveryView(runId)).definitelyHappened.map((i) => i.tool)).toEqual(
      expect.arrayContaining(["payments.refund", "mail.send"]),
    );

    // A recent finished run and an old unfinished one are untouched.
    expect(await snapshot(recent.runId)).toEqual(recentBefore);
    expect(await snapshot(waiting.runId)).toEqual(waitingBefore);

    // Again: nothing more to do, nothing changes.
    expect(await purgeFinishedRuns(db, { now: new Date(), retentionDays: 30, batchSize: 2 })).toEqual({
      runs: 0,
      checkpointsDeleted: 0,
      eventsDeleted: 0,
    });
    expect(await snapshot(runId)).toEqual(after);
  });

  it("a compacted run that ran again (a retry) and finished again is compacted again", async () => {
    const { runId } = await completedRefund();
    await backdate(runId);
    await purgeFinishedRuns(db, { now: new Date(), retentionDays: 30 });
    const { stateSeq, eventSeq, state } = await db.run.findUniqueOrThrow({
      where: { id: runId },
      select: { stateSeq: true, eventSeq: true, state: true },
    });
    // Its new history, as a retry would have written it: compacted 45 days ago, finished again 40 days ago.
    await db.checkpoint.create({ data: { runId, seq: stateSeq + 1, step: 9, state } });
    await db.traceEvent.createMany({
      data: [
        { runId, seq: eventSeq + 1, step: 9, type: "model.decision", data: "{}", at: old() },
        { runId, seq: eventSeq + 2, step: 9, type: "run.retried", data: "{}", at: old() },
      ],
    });
    await db.run.update({
      where: { id: runId },
      data: {
        stateSeq: stateSeq + 1,
        eventSeq: eventSeq + 2,
        compactedAt: new Date(Date.now() - 45 * DAY),
        updatedAt: old(),
      },
      select: { id: true },
    });

    const now = new Date();
    expect(await purgeFinishedRuns(db, { now, retentionDays: 30 })).toMatchObject({
      runs: 1,
      checkpointsDeleted: 1,
      eventsDeleted: 1,
    });
    const after = await snapshot(runId);
    expect(after.checkpoints.map((c) => c.seq)).toEqual([stateSeq + 1]);
    expect(after.events.at(-1)?.type).toBe("run.retried");
    expect(after.run.compactedAt).toEqual(now);
  });

  it("retention off (0 days) touches nothing", async () => {
    const { runId } = await completedRefund();
    await backdate(runId);
    const before = await snapshot(runId);
    expect(await purgeFinishedRuns(db, { now: new Date(), retentionDays: 0 })).toEqual({
      runs: 0,
      checkpointsDeleted: 0,
      eventsDeleted: 0,
    });
    expect(await snapshot(runId)).toEqual(before);
    await purgeFinishedRuns(db, { now: new Date(), retentionDays: 30 }); // leave no old, uncompacted run behind for the next test
  });

  it("the periodic purge compacts and logs its counts", async () => {
    const { runId } = await completedRefund();
    await backdate(runId);
    const logger = { info: vi.fn(), warn: vi.fn(), error: vi.fn() };
    const retention = startRetention({ db, retentionDays: 30, logger, firstDelayMs: 60_000 });
    await retention.runOnce();
    await retention.stop();
    expect(logger.error).not.toHaveBeenCalled();
    expect(logger.info).toHaveBeenCalledWith(
      "retention: compacted finished runs",
      expect.objectContaining({ runs: expect.any(Number), checkpointsDeleted: expect.any(Number), retentionDays: 30 }),
    );
    expect(logger.info.mock.calls[0][1].runs).toBeGreaterThanOrEqual(1);
    expect(
      (await db.run.findUniqueOrThrow({ where: { id: runId }, select: { compactedAt: true } })).compactedAt,
    ).toBeInstanceOf(Date);
  });

  describe("schedule fires", () => {
    const HOUR = 60 * 60 * 1000;
    const OUTCOMES = ["started", "skipped", "missed", "failed"];

    /** A schedule with a fire at each of these ticks (settled, unless listed as pending). Paused: no other
     *  test's ticker pass starts its pending fire. */
    async function scheduleWithFires(ticks: Date[], pending: Date[] = []) {
      const id = uid("sch");
      await db.schedule.create({
        data: {
          id,
          name: uid("retention"),
          agent: "refund-agent",
          input: "{}",
          cron: "0 * * * *",
          paused: true,
          createdBy: "ops@test",
        },
        select: { id: true },
      });
      await db.scheduleFire.createMany({
        data: [
          ...ticks.map((tick, i) => ({ id: uid("sfi"), scheduleId: id, tick, outcome: OUTCOMES[i % OUTCOMES.length] })),
          ...pending.map((tick) => ({ id: uid("sfi"), scheduleId: id, tick, outcome: "pending" })),
        ],
      });
      return id;
    }
    const ticksOf = async (scheduleId: string) =>
      (
        await db.scheduleFire.findMany({
          where: { scheduleId },
          orderBy: { tick: "desc" },
          select: { tick: true, outcome: true },
        })
      ).map((f) => [f.tick.getTime(), f.outcome] as const);

    it("deletes fires older than the period, except each schedule's newest and those still pending; a second purge changes nothing", async () => {
      const now = new Date();
      const ago = (ms: number) => new Date(now.getTime() - ms);
      expect(DEFAULT_KEPT_FIRES).toBe(100);
      // Daily for 150 days, and a tick 120 days old still pending: the newest 100 stay though most are old.
      const daily = await scheduleWithFires(
        Array.from({ length: 150 }, (_, i) => ago((i + 1) * DAY)),
        [ago(120 * DAY + HOUR)],
      );
      // Hourly for 40 days: more than 100 within the period, so everything older than it goes.
      const hourly = await scheduleWithFires(Array.from({ length: 40 * 24 }, (_, i) => ago((i + 1) * HOUR)));
      // A few old fires only: all of them are its newest.
      const rare = await scheduleWithFires([200, 201, 202, 203, 204].map((d) => ago(d * DAY)));
      // Only recent fires: nothing to do.
      const recent = await scheduleWithFires(Array.from({ length: 120 }, (_, i) => ago((i + 1) * HOUR)));
      const before = {
        daily: await ticksOf(daily),
        hourly: await ticksOf(hourly),
        rare: await ticksOf(rare),
        recent: await ticksOf(recent),
      };

      // Small batches: several pages of schedules and many delete statements.
      const deleted = await purgeScheduleFires(db, { now, retentionDays: 30, batchSize: 2 });
      const after = {
        daily: await ticksOf(daily),
        hourly: await ticksOf(hourly),
        rare: await ticksOf(rare),
        recent: await ticksOf(recent),
      };
      const cutoff = ago(30 * DAY).getTime();
      expect(after.daily).toEqual(
        before.daily.filter(([tick, outcome]) => tick >= ago(100 * DAY).getTime() || outcome === "pending"),
      );
      expect(after.daily).toHaveLength(101);
      expect(after.daily.filter(([, outcome]) => outcome === "pending")).toEqual([
        [ago(120 * DAY + HOUR).getTime(), "pending"],
      ]);
      expect(after.hourly).toEqual(before.hourly.filter(([tick]) => tick >= cutoff));
      expect(after.hourly).toHaveLength(30 * 24);
      expect(after.rare).toEqual(before.rare);
      expect(after.recent).toEqual(before.recent);
      // Other tests' schedules may lose old fires too: at least these went.
      expect(deleted).toBeGreaterThanOrEqual(50 + 10 * 24);

      expect(await purgeScheduleFires(db, { now, retentionDays: 30, batchSize: 2 })).toBe(0);
      expect({
        daily: await ticksOf(daily),
        hourly: await ticksOf(hourly),
        rare: await ticksOf(rare),
        recent: await ticksOf(recent),
      }).toEqual(after);
    });

    it("retention off keeps every fire; the periodic purge deletes old ones and logs how many", async () => {
      const old = Array.from({ length: DEFAULT_KEPT_FIRES + 3 }, (_, i) => new Date(Date.now() - (i + 1) * DAY));
      const id = await scheduleWithFires(old);
      expect(await purgeScheduleFires(db, { now: new Date(), retentionDays: 0 })).toBe(0);
      expect(await db.scheduleFire.count({ where: { scheduleId: id } })).toBe(DEFAULT_KEPT_FIRES + 3);

      const logger = { info: vi.fn(), warn: vi.fn(), error: vi.fn() };
      const retention = startRetention({ db, retentionDays: 30, logger, firstDelayMs: 60_000 });
      await retention.runOnce();
      await retention.stop();
      expect(logger.error).not.toHaveBeenCalled();
      expect(await db.scheduleFire.count({ where: { scheduleId: id } })).toBe(DEFAULT_KEPT_FIRES);
      const logged = logger.info.mock.calls.find(([msg]) => msg === "retention: deleted old schedule fires");
      expect(logged?.[1]).toMatchObject({ scheduleFiresDeleted: expect.any(Number), retentionDays: 30 });
      expect(logged?.[1].scheduleFiresDeleted).toBeGreaterThanOrEqual(3);
    });
  });

  it("deleteRun removes a finished run with all its data and audits it; refuses an active or missing run", async () => {
    const { runId, packet } = await completedRefund();
    expect(await db.stateEntry.count({ where: { runId } })).toBeGreaterThan(0); // its facts and journal
    const deleted = await deleteRun(db, { runId, by: "ada@example.com" });
    expect(deleted).toMatchObject({ id: runId, status: "COMPLETED", deleted: { packets: 1, intents: 2 } });
    expect(deleted.deleted.events).toBeGreaterThan(5);
    const where = { runId };
    expect(
      await Promise.all([
        db.run.count({ where: { id: runId } }),
        db.checkpoint.count({ where }),
        db.traceEvent.count({ where }),
        db.effectIntent.count({ where }),
        db.decisionPacket.count({ where }),
        db.packetApproval.count({ where: { packetId: packet.id } }),
        db.signal.count({ where }),
        db.stateEntry.count({ where }),
      ]),
    ).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
    const audit = await db.auditLog.findMany({ where: { target: runId } });
    expect(audit).toEqual([expect.objectContaining({ actor: "ada@example.com", action: "runs.delete" })]);
    expect(JSON.parse(audit[0].data)).toMatchObject({
      status: "COMPLETED",
      startedBy: "sam@example.com",
      deleted: deleted.deleted,
    });

    const waiting = await waitingRefund();
    const error = await expectError(deleteRun(db, { runId: waiting.runId, by: "ada@example.com" }), "CONFLICT");
    expect(error.userMessage).toMatch(/Only a finished run/);
    expect(await db.run.count({ where: { id: waiting.runId } })).toBe(1);
    expect(await db.decisionPacket.count({ where: { runId: waiting.runId } })).toBe(1);
    expect(await db.auditLog.count({ where: { target: waiting.runId } })).toBe(0);

    await expectError(deleteRun(db, { runId: "run_nope", by: "ada@example.com" }), "NOT_FOUND");
    await expectError(deleteRun(db, { runId, by: "ada@example.com" }), "NOT_FOUND"); // already deleted
  });

  describe("DELETE /api/runs/:id", () => {
    let server: Awaited<ReturnType<typeof startRouteServer>>;
    const tokens: Record<string, string> = {};
    beforeAll(async () => {
      process.env.DATABASE_URL = url; // the route handlers' composition root follows it
      const admin = await createPersonWithToken(db, { role: "admin", scopes: ["admin"] });
      tokens.admin = admin.token;
      tokens.adminEmail = admin.email;
      tokens.writer = (
        await createPersonWithToken(db, { role: "operator", scopes: ["runs:write", "runs:read"] })
      ).token;
      server = await startRouteServer();
    });
    afterAll(async () => {
      await server.close();
    });

    const del = async (runId: string, token?: string) => {
      const res = await fetch(`${server.url}/api/runs/${runId}`, {
        method: "DELETE",
        headers: token ? { authorization: `Bearer ${token}` } : {},
      });
      return { status: res.status, json: await res.json() };
    };

    it("needs the admin scope; deletes a finished run, 409 for an active one, 404 for a missing one", async () => {
      const { runId } = await completedRefund();
      expect(await del(runId)).toMatchObject({ status: 401, json: { error: { code: "UNAUTHENTICATED" } } });
      expect(await del(runId, tokens.writer)).toMatchObject({ status: 403, json: { error: { code: "FORBIDDEN" } } });
      expect(await db.run.count({ where: { id: runId } })).toBe(1);

      expect(await del(runId, tokens.admin)).toMatchObject({
        status: 200,
        json: { deleted: { id: runId, status: "COMPLETED" } },
      });
      expect(await db.run.count({ where: { id: runId } })).toBe(0);
      expect(
        await db.auditLog.findFirst({ where: { target: runId, action: "runs.delete" }, select: { actor: true } }),
      ).toEqual({ actor: tokens.adminEmail }); // the token's owner, a person
      expect(await del(runId, tokens.admin)).toMatchObject({ status: 404, json: { error: { code: "NOT_FOUND" } } });

      const waiting = await waitingRefund();
      expect(await del(waiting.runId, tokens.admin)).toMatchObject({
        status: 409,
        json: { error: { code: "CONFLICT", message: expect.stringMatching(/finished/) } },
      });
      expect(await db.run.count({ where: { id: waiting.runId } })).toBe(1);
    });
  });
});
