import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { AppError, type ErrorCode } from "../lib/runtime/errors";
import type { RunState } from "../lib/runtime/state";
import { createDb } from "../lib/db";
import type { NewRun, RuntimeStore, StepCommit, Wakeup } from "../lib/runtime/store";
import { createPrismaStore } from "../lib/store/prisma-store";
import { NOTHING_STORED } from "../lib/store/state-entries";
import { TERMINAL_STATUSES, type Lease, type PermissionRule } from "../lib/runtime/types";
import {
  buildNewPacket,
  buildNewRun,
  createClaimedRun as createClaimedRunIn,
  createRun as createRunIn,
} from "./support/contract/builders";
import { createTestRuntime, providers, uid } from "./support/runtime";
import { until } from "./support/until";

// The RuntimeStore contract (lib/runtime/store.ts), against the real Prisma store on every database.
// Every test makes its own runs, packets and permissions under random ids.

async function expectAppError(promise: Promise<unknown>, codes: ErrorCode | ErrorCode[]): Promise<AppError> {
  const error = await promise.then(
    () => {
      throw new Error(`expected AppError ${String(codes)}, but it resolved`);
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  expect([codes].flat()).toContain((error as AppError).code);
  return error as AppError;
}

function settled<T>(results: PromiseSettledResult<T>[]) {
  return {
    won: results.flatMap((r) => (r.status === "fulfilled" ? [r.value] : [])),
    lost: results.flatMap((r) => (r.status === "rejected" ? [r.reason as unknown] : [])),
  };
}

describe.each(providers())("RuntimeStore contract [%s]", (_provider, url) => {
  let t: ReturnType<typeof createTestRuntime>;
  let store: RuntimeStore;
  // One agent slug for the whole suite, so afterAll can leave nothing runnable for other files' workers.
  const agentSlug = uid("contract-agent");

  const createRun = (overrides: Partial<NewRun> = {}) => createRunIn(store, { agentSlug, ...overrides });
  const createClaimedRun = (opts: Parameters<typeof createClaimedRunIn>[1] = {}) =>
    createClaimedRunIn(store, { ...opts, run: { agentSlug, ...opts.run } });
  const nextState = (state: RunState, patch: Partial<RunState> = {}): RunState => ({
    ...state,
    step: state.step + 1,
    ...patch,
  });
  const commit = (
    lease: Lease,
    state: RunState,
    extra: Partial<StepCommit> = {},
  ): Promise<{ stateSeq: number; eventSeq: number }> =>
    store.commitStep({
      lease,
      status: "RUNNING",
      state,
      storedEntries: NOTHING_STORED,
      events: [{ type: "step.done", step: state.step, data: {} }],
      ...extra,
    });

  /** A run parked on a decision packet, as a step that asked for approval leaves it. */
  async function createWaitingPacket(packet: Partial<Parameters<typeof buildNewPacket>[1]> = {}) {
    const { run, lease } = await createClaimedRun();
    const newPacket = buildNewPacket(run.id, { step: run.state.step, ...packet });
    await store.commitStep({
      lease,
      status: "WAITING_APPROVAL",
      state: run.state,
      storedEntries: run.storedEntries,
      releaseLease: true,
      createPacket: newPacket,
      events: [{ type: "gate.requested", step: run.state.step, data: { packetId: newPacket.id } }],
    });
    return { run, packet: (await store.getPacket(newPacket.id, null))! };
  }

  beforeAll(() => {
    t = createTestRuntime(url);
    store = t.store;
  });

  afterAll(async () => {
    for (const run of await store.findRuns({ agentSlug, limit: 10_000 })) {
      if (!TERMINAL_STATUSES.includes(run.status)) {
        await store
          .transitionRun({ runId: run.id, from: [run.status], to: "CANCELLED", revokeLease: true, events: [] })
          .catch(() => {});
      }
    }
    await t.close();
  });

  describe("createRun", () => {
    it("writes a queued run with its first checkpoint and events numbered from 1", async () => {
      const newRun = buildNewRun({
        agentSlug,
        events: [
          { type: "run.created", step: 0, data: {} },
          { type: "run.note", step: 0, data: { n: 1 } },
        ],
      });
      const { run, created } = await store.createRun(newRun);
      expect(created).toBe(true);
      expect(run).toMatchObject({
        id: newRun.id,
        status: "QUEUED",
        state: newRun.state,
        stateSeq: 1,
        eventSeq: 2,
        leaseOwner: null,
        leaseEpoch: 0,
      });
      expect((await store.listCheckpoints(run.id)).map((c) => [c.seq, c.state])).toEqual([[1, newRun.state]]);
      expect((await store.listEvents(run.id)).map((e) => [e.seq, e.type])).toEqual([
        [1, "run.created"],
        [2, "run.note"],
      ]);
    });

    it("with an idempotency key already used, returns the first run and creates nothing", async () => {
      const idempotencyKey = uid("idem");
      const first = await store.createRun(buildNewRun({ agentSlug, idempotencyKey }));
      const again = buildNewRun({ agentSlug, idempotencyKey, input: { other: true } });
      const second = await store.createRun(again);
      expect([first.created, second.created]).toEqual([true, false]);
      expect(second.run.id).toBe(first.run.id);
      expect(second.run.input).toEqual(first.run.input);
      expect(await store.getRun(again.id)).toBeNull();
    });

    it.runIf(_provider === "postgres")(
      "a burst of new runs twenty times the connection pool: each is one statement, and they share their commits",
      async () => {
        // An interactive transaction per new run made a burst queue for the pool's connections until
        // Prisma gave up waiting to start one. A new run is now one statement, and a burst goes as a step's
        // commits do (group-commit.ts): a few transactions of many runs each, never one per run.
        const sent: string[] = [];
        const inTransaction = new Set<pg.Client>();
        let commits = 0; // a statement sent outside a transaction commits alone; a batch commits at its COMMIT
        const query = pg.Client.prototype.query;
        pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
          const text = typeof args[0] === "string" ? args[0] : (args[0] as { text?: string })?.text;
          const word = text?.trim().split(/\s+/)[0].toUpperCase();
          if (word) sent.push(word);
          if (word === "BEGIN") inTransaction.add(this);
          else if (word === "COMMIT" || word === "ROLLBACK") {
            inTransaction.delete(this);
            commits++;
          } else if (!inTransaction.has(this)) commits++;
          return (query as (...a: unknown[]) => unknown).apply(this, args);
        } as typeof query;
        const runs = Array.from({ length: 200 }, () => buildNewRun({ agentSlug }));
        const results = await Promise.all(runs.map((run) => store.createRun(run))).finally(() => {
          pg.Client.prototype.query = query;
        });
        expect(sent.filter((s) => s === "WITH")).toHaveLength(200);
        expect(sent.filter((s) => s !== "WITH" && s !== "BEGIN" && s !== "COMMIT")).toEqual([]);
        // The first few go alone (a lane was free), the rest in batches of at most 64.
        expect(commits).toBeLessThanOrEqual(20);
        expect(results.every((r) => r.created)).toBe(true);
        for (const run of runs.slice(0, 5)) {
          expect(await store.listCheckpoints(run.id)).toHaveLength(1);
          expect((await store.listEvents(run.id)).map((e) => e.seq)).toEqual(run.events.map((_, i) => i + 1));
        }
      },
    );

    it("with one idempotency key sent concurrently, creates exactly one run", async () => {
      const idempotencyKey = uid("idem");
      const attempts = Array.from({ length: 6 }, () => buildNewRun({ agentSlug, idempotencyKey }));
      const results = await Promise.all(attempts.map((r) => store.createRun(r)));

      expect(results.filter((r) => r.created)).toHaveLength(1);
      const winner = results.find((r) => r.created)!.run;
      expect(new Set(results.map((r) => r.run.id))).toEqual(new Set([winner.id]));
      for (const loser of attempts.filter((a) => a.id !== winner.id)) {
        expect(await store.getRun(loser.id)).toBeNull();
        expect(await store.listCheckpoints(loser.id)).toEqual([]);
        expect(await store.listEvents(loser.id)).toEqual([]);
      }
    });
  });

  describe("claimRun", () => {
    it("gives a queued run to one worker and bumps the epoch", async () => {
      const run = await createRun();
      const now = new Date();
      const claim = await store.claimRun({ owner: "worker-a", now, leaseMs: 10_000, runId: run.id });
      expect(claim?.lease).toEqual({
        runId: run.id,
        owner: "worker-a",
        epoch: 1,
        expiresAt: new Date(now.getTime() + 10_000),
      });
      expect(claim?.run).toMatchObject({
        id: run.id,
        leaseOwner: "worker-a",
        leaseEpoch: 1,
        state: run.state,
        storedEntries: run.storedEntries,
      });
    });

    it("when two workers race for one run, exactly one gets it", async () => {
      for (let round = 0; round < 5; round++) {
        const run = await createRun();
        const now = new Date();
        const claims = await Promise.all(
          ["worker-a", "worker-b"].map((owner) => store.claimRun({ owner, now, leaseMs: 10_000, runId: run.id })),
        );
        const winners = claims.filter((c) => c !== null);
        expect(winners).toHaveLength(1);
        expect(claims.filter((c) => c === null)).toHaveLength(1);
        expect(winners[0]!.lease.epoch).toBe(1);
        const stored = await store.getRun(run.id);
        expect(stored).toMatchObject({ leaseOwner: winners[0]!.lease.owner, leaseEpoch: 1 });
      }
    });

    it("when many workers race, one wins and the epoch moves once", async () => {
      const run = await createRun();
      const now = new Date();
      const claims = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          store.claimRun({ owner: `worker-${i}`, now, leaseMs: 10_000, runId: run.id }),
        ),
      );
      expect(claims.filter((c) => c !== null)).toHaveLength(1);
      expect((await store.getRun(run.id))!.leaseEpoch).toBe(1);
    });

    it("does not take a run whose lease is still live", async () => {
      const now = new Date();
      const { run } = await createClaimedRun({ owner: "worker-a", now, leaseMs: 10_000 });
      expect(
        await store.claimRun({
          owner: "worker-b",
          now: new Date(now.getTime() + 9_000),
          leaseMs: 10_000,
          runId: run.id,
        }),
      ).toBeNull();
      expect(await store.getRun(run.id)).toMatchObject({ leaseOwner: "worker-a", leaseEpoch: 1 });
    });

    it("takes over a run whose lease expired, with a higher epoch", async () => {
      const now = new Date();
      const { run } = await createClaimedRun({ owner: "worker-a", now, leaseMs: 1_000 });
      const claim = await store.claimRun({
        owner: "worker-b",
        now: new Date(now.getTime() + 5_000),
        leaseMs: 1_000,
        runId: run.id,
      });
      expect(claim?.lease).toMatchObject({ owner: "worker-b", epoch: 2 });
    });

    it("claims a released run again with a higher epoch", async () => {
      const { run, lease } = await createClaimedRun({ owner: "worker-a" });
      await store.releaseLease(lease);
      expect(await store.getRun(run.id)).toMatchObject({ leaseOwner: null, leaseExpiresAt: null, leaseEpoch: 1 });
      const again = await store.claimRun({ owner: "worker-a", now: new Date(), leaseMs: 10_000, runId: run.id });
      expect(again?.lease.epoch).toBe(2);
    });

    it("does not take a sleeping run before it is due, and takes it when due", async () => {
      const now = new Date();
      const { run, lease } = await createClaimedRun({ now });
      const wakeAt = new Date(now.getTime() + 60_000);
      await store.commitStep({
        lease,
        status: "SLEEPING",
        state: run.state,
        storedEntries: run.storedEntries,
        wakeAt,
        releaseLease: true,
        events: [],
      });
      expect(
        await store.claimRun({ owner: "w", now: new Date(now.getTime() + 59_000), leaseMs: 1_000, runId: run.id }),
      ).toBeNull();
      expect(await store.claimRun({ owner: "w", now: wakeAt, leaseMs: 1_000, runId: run.id })).not.toBeNull();
    });

    it("does not take a finished run", async () => {
      const { run, lease } = await createClaimedRun();
      await store.commitStep({
        lease,
        status: "COMPLETED",
        state: run.state,
        storedEntries: run.storedEntries,
        releaseLease: true,
        events: [],
      });
      expect(
        await store.claimRun({ owner: "w", now: new Date(Date.now() + 3_600_000), leaseMs: 1_000, runId: run.id }),
      ).toBeNull();
    });
  });

  describe("fencing", () => {
    /** Worker A held the run; its lease expired; worker B took the run over. */
    async function takenOver() {
      const t0 = new Date();
      const a = await createClaimedRun({ owner: "worker-a", now: t0, leaseMs: 1_000 });
      const b = await store.claimRun({
        owner: "worker-b",
        now: new Date(t0.getTime() + 5_000),
        leaseMs: 30_000,
        runId: a.run.id,
      });
      if (!b) throw new Error("worker B could not take the run over");
      return {
        runId: a.run.id,
        stale: a.lease,
        current: b.lease,
        state: a.run.state,
        storedEntries: a.run.storedEntries,
      };
    }

    it("a worker whose lease was taken over cannot commit a step, and nothing of it is written", async () => {
      const { runId, stale, state } = await takenOver();
      const before = await store.getRun(runId);
      const checkpointsBefore = await store.listCheckpoints(runId);
      const eventsBefore = await store.listEvents(runId);

      const intentId = uid("op");
      const packet = buildNewPacket(runId);
      await expectAppError(
        store.commitStep({
          lease: stale,
          status: "WAITING_APPROVAL",
          state: nextState(state, { output: "from the stale worker" }),
          storedEntries: NOTHING_STORED,
          releaseLease: true,
          events: [{ type: "step.done", step: 0, data: { by: "worker-a" } }],
          createIntent: {
            id: intentId,
            runId,
            step: 0,
            tool: "payments.refund",
            args: { amountCents: 100 },
            semantics: "idempotent",
            decision: null,
          },
          createPacket: packet,
        }),
        "LEASE_LOST",
      );

      expect(await store.getRun(runId)).toEqual(before);
      expect(await store.listCheckpoints(runId)).toEqual(checkpointsBefore);
      expect(await store.listEvents(runId)).toEqual(eventsBefore);
      expect(await store.getIntent(intentId)).toBeNull();
      expect(await store.getPacket(packet.id, null)).toBeNull();
    });

    it("a worker whose lease was taken over cannot renew it", async () => {
      const { runId, stale, current } = await takenOver();
      expect(await store.renewLeases(stale.owner, [stale], new Date(), 60_000)).toEqual([]);
      expect(await store.getRun(runId)).toMatchObject({
        leaseOwner: "worker-b",
        leaseEpoch: current.epoch,
        leaseExpiresAt: current.expiresAt,
      });
    });

    it("a worker whose lease was taken over cannot release the new holder's lease", async () => {
      const { runId, stale, current } = await takenOver();
      await store.releaseLease(stale);
      expect(await store.getRun(runId)).toMatchObject({
        leaseOwner: "worker-b",
        leaseEpoch: current.epoch,
        leaseExpiresAt: current.expiresAt,
      });
    });

    it("the new holder commits normally after the old one was fenced out", async () => {
      const { runId, stale, current, state } = await takenOver();
      await expectAppError(commit(stale, nextState(state)), "LEASE_LOST");
      const result = await commit(current, nextState(state));
      expect(result).toEqual({ stateSeq: 2, eventSeq: 2 });
      expect((await store.getRun(runId))!.state.step).toBe(state.step + 1);
    });

    it("renewing a held lease moves its expiry", async () => {
      const now = new Date();
      const { run, lease } = await createClaimedRun({ now, leaseMs: 1_000 });
      const later = new Date(now.getTime() + 500);
      const [renewed] = await store.renewLeases(lease.owner, [lease], later, 10_000);
      expect(renewed).toEqual({ ...lease, expiresAt: new Date(later.getTime() + 10_000) });
      expect((await store.getRun(run.id))!.leaseExpiresAt).toEqual(renewed.expiresAt);
    });

    it("a lease given back with releaseLease can no longer write", async () => {
      const { run, lease } = await createClaimedRun();
      await store.commitStep({
        lease,
        status: "WAITING_EVENT",
        waitingFor: "never",
        state: run.state,
        storedEntries: run.storedEntries,
        releaseLease: true,
        events: [],
      });
      await expectAppError(commit(lease, nextState(run.state)), "LEASE_LOST");
    });

    it("cancelling a run fences out the worker holding it", async () => {
      const { run, lease } = await createClaimedRun();
      const cancelled = await store.transitionRun({
        runId: run.id,
        from: ["RUNNING", "QUEUED"],
        to: "CANCELLED",
        revokeLease: true,
        events: [{ type: "run.cancelled", step: -1, data: {} }],
      });
      expect(cancelled).toMatchObject({ status: "CANCELLED", leaseOwner: null, leaseEpoch: lease.epoch + 1 });
      await expectAppError(commit(lease, nextState(run.state)), "LEASE_LOST");
      expect(await store.renewLeases(lease.owner, [lease], new Date(), 1_000)).toEqual([]);
      expect((await store.getRun(run.id))!.status).toBe("CANCELLED");
    });
  });

  describe("batch claims, one heartbeat, wake-ups", () => {
    // Runs made on a clock far in the past: only they are due at that time, whatever else the shared
    // database holds, so a batch claim there sees exactly this test's runs.
    let past: RuntimeStore;
    let clock = new Date("2001-01-01T00:00:00.000Z");
    const tick = (ms = 1_000) => (clock = new Date(clock.getTime() + ms));
    const made: string[] = [];
    beforeAll(() => {
      past = createPrismaStore(t.db, { now: () => clock });
    });
    // Each test ends its runs, so that none of them comes due in the next one as the clock moves on.
    afterEach(async () => {
      for (const runId of made.splice(0)) {
        await past
          .transitionRun({
            runId,
            from: ["QUEUED", "RUNNING", "SLEEPING"],
            to: "CANCELLED",
            revokeLease: true,
            events: [],
          })
          .catch(() => {});
      }
    });
    const createPastRuns = async (n: number) => {
      const ids: string[] = [];
      for (let i = 0; i < n; i++) {
        tick();
        ids.push((await past.createRun(buildNewRun({ agentSlug }))).run.id);
      }
      made.push(...ids);
      return ids;
    };

    it("claimRuns leases up to the limit, the longest runnable first, each under its own lease", async () => {
      const ids = await createPastRuns(5);
      const claims = await past.claimRuns({ owner: "batch-a", now: tick(), leaseMs: 10_000, limit: 3 });
      expect(claims.map((c) => c.run.id).sort()).toEqual(ids.slice(0, 3).sort());
      for (const c of claims)
        expect(c.lease).toEqual({
          runId: c.run.id,
          owner: "batch-a",
          epoch: 1,
          expiresAt: new Date(clock.getTime() + 10_000),
        });
      const rest = await past.claimRuns({ owner: "batch-b", now: clock, leaseMs: 10_000, limit: 10 });
      expect(rest.map((c) => c.run.id).sort()).toEqual(ids.slice(3).sort());
    });

    it("two workers claiming at once never share a run", async () => {
      const ids = await createPastRuns(12);
      const now = tick();
      const [a, b] = await Promise.all(
        ["race-a", "race-b"].map((owner) => past.claimRuns({ owner, now, leaseMs: 10_000, limit: 8 })),
      );
      const claimed = [...a, ...b].map((c) => c.run.id);
      expect(new Set(claimed).size).toBe(claimed.length);
      expect(claimed.sort()).toEqual([...ids].sort());
    });

    it.runIf(_provider === "postgres")(
      "a claim prepared before a migration changed the table still works after it",
      async () => {
        await createPastRuns(2);
        expect(
          await past.claimRuns({ owner: "before-migration", now: tick(), leaseMs: 60_000, limit: 1 }),
        ).toHaveLength(1);
        await t.db.$executeRawUnsafe(`ALTER TABLE "Run" ADD COLUMN "migrationProbe" INTEGER`);
        try {
          // The prepared RETURNING "Run".* no longer matches the table: Postgres refuses it once, and it is prepared again.
          expect(
            await past.claimRuns({ owner: "after-migration", now: tick(), leaseMs: 60_000, limit: 1 }),
          ).toHaveLength(1);
        } finally {
          await t.db.$executeRawUnsafe(`ALTER TABLE "Run" DROP COLUMN "migrationProbe"`);
        }
      },
    );

    it("a held run is claimable again exactly when its lease runs out", async () => {
      const [id] = await createPastRuns(1);
      const [held] = await past.claimRuns({ owner: "dies", now: tick(), leaseMs: 5_000, limit: 1 });
      expect(held.run.id).toBe(id);
      expect(await past.nextRunnableAt({ owner: "other", after: clock })).toEqual(held.lease.expiresAt);
      expect(
        await past.claimRuns({
          owner: "other",
          now: new Date(held.lease.expiresAt.getTime() - 1),
          leaseMs: 5_000,
          limit: 5,
        }),
      ).toEqual([]);
      const [taken] = await past.claimRuns({
        owner: "other",
        now: new Date(held.lease.expiresAt.getTime() + 1),
        leaseMs: 5_000,
        limit: 5,
      });
      expect(taken).toMatchObject({ run: { id }, lease: { owner: "other", epoch: 2 } });
      clock = new Date(held.lease.expiresAt.getTime() + 2);
    });

    it("one heartbeat renews every lease still held and leaves out the lost", async () => {
      await createPastRuns(3);
      const claims = await past.claimRuns({ owner: "beater", now: tick(), leaseMs: 5_000, limit: 3 });
      expect(claims).toHaveLength(3);
      await past.transitionRun({
        runId: claims[1].run.id,
        from: ["QUEUED"],
        to: "CANCELLED",
        revokeLease: true,
        events: [],
      });
      const renewed = await past.renewLeases(
        "beater",
        claims.map((c) => c.lease),
        tick(),
        5_000,
      );
      expect(renewed.map((l) => l.runId)).toEqual([claims[0].run.id, claims[2].run.id]);
      expect(renewed.every((l) => l.expiresAt.getTime() === clock.getTime() + 5_000)).toBe(true);
      expect((await past.getRun(claims[2].run.id))!.leaseExpiresAt).toEqual(renewed[1].expiresAt);
    });

    it("a run parked on a timer is due at its timer; one given back with work left is due at once", async () => {
      await createPastRuns(2);
      const [sleeper, yielder] = await past.claimRuns({ owner: "parker", now: tick(), leaseMs: 60_000, limit: 2 });
      const wakeAt = new Date(clock.getTime() + 30_000);
      await past.commitStep({
        lease: sleeper.lease,
        status: "SLEEPING",
        state: sleeper.run.state,
        storedEntries: sleeper.run.storedEntries,
        wakeAt,
        releaseLease: true,
        events: [],
      });
      await past.releaseLease(yielder.lease);
      expect(await past.nextRunnableAt({ owner: "x", after: clock })).toEqual(wakeAt);
      expect(
        (await past.claimRuns({ owner: "x", now: clock, leaseMs: 60_000, limit: 5 })).map((c) => c.run.id),
      ).toEqual([yielder.run.id]);
      expect(
        (await past.claimRuns({ owner: "x", now: wakeAt, leaseMs: 1_000, limit: 5 })).map((c) => c.run.id),
      ).toEqual([sleeper.run.id]);
      clock = new Date(wakeAt.getTime() + 1_000);
    });

    it("onRunnable hears a new run, a decision, a signal, a run given back, and a timer", async () => {
      const heard: Wakeup[] = [];
      const unsubscribe = store.onRunnable((w) => heard.push(w));
      try {
        const created = await createRun();
        expect(heard).toContainEqual({ runId: created.id });
        const { run, packet } = await createWaitingPacket();
        await store.decidePacket({
          workspaceId: "default",
          packetId: packet.id,
          version: packet.version,
          final: { status: "APPROVED", decision: { decision: "approve" }, decidedBy: "ann", now: new Date() },
          events: [],
        });
        expect(heard).toContainEqual({ runId: run.id });
        const waiting = await createClaimedRun();
        await store.commitStep({
          lease: waiting.lease,
          status: "WAITING_EVENT",
          waitingFor: "ping",
          state: waiting.run.state,
          storedEntries: waiting.run.storedEntries,
          releaseLease: true,
          events: [],
        });
        await store.deliverSignal({
          id: uid("sig"),
          runId: waiting.run.id,
          type: "ping",
          dedupKey: uid("k"),
          payload: {},
          now: new Date(),
        });
        expect(heard).toContainEqual({ runId: waiting.run.id });
        const sleeper = await createClaimedRun();
        const wakeAt = new Date(Date.now() + 60_000);
        await store.commitStep({
          lease: sleeper.lease,
          status: "SLEEPING",
          state: sleeper.run.state,
          storedEntries: sleeper.run.storedEntries,
          wakeAt,
          releaseLease: true,
          events: [],
        });
        expect(heard).toContainEqual({ runId: sleeper.run.id, at: wakeAt });
        const yielder = await createClaimedRun();
        await store.releaseLease(yielder.lease);
        expect(heard).toContainEqual({ runId: yielder.run.id });
      } finally {
        unsubscribe();
      }
    });

    /** Postgres delivers NOTIFYs in commit order: once a listener hears a run created after the
     *  changes under test, it has heard every NOTIFY those changes sent. */
    async function untilNotifiesArrive(heard: Wakeup[]) {
      const marker = await createRun();
      await until(`the NOTIFY of run ${marker.id}, created last, arrives`, () =>
        heard.some((w) => w.runId === marker.id),
      );
    }

    it.runIf(_provider === "postgres")(
      "the process that made a change is woken once for it, not again by its own NOTIFY",
      async () => {
        const own = createPrismaStore(createDb(url));
        const heard: Wakeup[] = [];
        const unsubscribe = own.onRunnable((w) => heard.push(w));
        try {
          await until("the store listens", () => heard.length > 0);
          const { run } = await own.createRun(buildNewRun({ agentSlug }));
          await untilNotifiesArrive(heard); // its own NOTIFY, had it not been dropped, would be among them
          expect(heard.filter((w) => w.runId === run.id)).toEqual([{ runId: run.id }]);
        } finally {
          unsubscribe();
          await own.close();
        }
      },
    );

    it.runIf(_provider === "postgres")(
      "another process hears a new run by LISTEN/NOTIFY, sent only when the change commits",
      async () => {
        const elsewhere = createPrismaStore(createDb(url));
        const heard: Wakeup[] = [];
        const unsubscribe = elsewhere.onRunnable((w) => heard.push(w));
        try {
          await until("the other store listens", () => heard.length > 0); // "listening": a first look
          const created = await createRun();
          await until(`the other store hears run ${created.id}`, () => heard.some((w) => w.runId === created.id));
          // A change that rolls back sends nothing: the same id again is a unique violation inside createRun's transaction.
          const duplicate = buildNewRun({ agentSlug, id: created.id });
          await store.createRun(duplicate).catch(() => {});
          await untilNotifiesArrive(heard);
          expect(heard.filter((w) => w.runId === created.id)).toHaveLength(1);
        } finally {
          unsubscribe();
          await elsewhere.close();
        }
      },
    );
  });

  describe("commitStep", () => {
    it("commits of many runs at once all land, and one that fails fails alone (on Postgres they share transactions: group commit)", async () => {
      const runs = await Promise.all(Array.from({ length: 30 }, () => createClaimedRun()));
      const taken = uid("op");
      await commit(runs[0].lease, nextState(runs[0].run.state), {
        createIntent: {
          id: taken,
          runId: runs[0].run.id,
          step: 0,
          tool: "payments.refund",
          args: {},
          semantics: "idempotent",
          decision: null,
        },
      });
      // Run 7 records an intent under an id that is taken: its commit fails (a unique violation). The
      // others, sent in the same moment, must not be rolled back with it.
      const results = await Promise.allSettled(
        runs.slice(1).map(({ run, lease }, i) =>
          commit(
            lease,
            nextState(run.state, { output: `run ${i + 1}` }),
            i + 1 === 7
              ? {
                  createIntent: {
                    id: taken,
                    runId: run.id,
                    step: 0,
                    tool: "payments.refund",
                    args: {},
                    semantics: "idempotent",
                    decision: null,
                  },
                }
              : {},
          ),
        ),
      );
      expect(results.map((r) => r.status)).toEqual(
        runs.slice(1).map((_, i) => (i + 1 === 7 ? "rejected" : "fulfilled")),
      );
      for (const [i, { run }] of runs.entries()) {
        if (i === 0) continue;
        const stored = await store.getRun(run.id);
        expect([stored!.stateSeq, stored!.state.output]).toEqual(i === 7 ? [1, undefined] : [2, `run ${i}`]);
      }
      expect(await store.getIntent(taken)).toMatchObject({ runId: runs[0].run.id });
    });

    it("writes the state, a checkpoint, the events, the intent and its result", async () => {
      const { run, lease } = await createClaimedRun();
      const intentId = uid("op");
      const s1 = nextState(run.state, {
        pending: {
          kind: "effect",
          intentId,
          step: 0,
          call: 0,
          action: { tool: "payments.refund", args: { amountCents: 100 }, evidence: [] },
        },
      });
      const r1 = await store.commitStep({
        lease,
        status: "RUNNING",
        state: s1,
        storedEntries: run.storedEntries,
        events: [{ type: "effect.intent", step: 0, data: { intentId } }],
        createIntent: {
          id: intentId,
          runId: run.id,
          step: 0,
          tool: "payments.refund",
          args: { amountCents: 100 },
          semantics: "idempotent",
          decision: { kind: "call" },
        },
      });
      expect(r1).toEqual({ stateSeq: 2, eventSeq: 2 });
      expect(await store.getIntent(intentId)).toMatchObject({
        status: "PENDING",
        attempt: 1,
        result: null,
        completedAt: null,
        args: { amountCents: 100 },
      });

      const s2 = nextState(s1, { pending: null });
      const r2 = await store.commitStep({
        lease,
        status: "RUNNING",
        state: s2,
        storedEntries: run.storedEntries,
        events: [
          { type: "tool.call", step: 1, data: {} },
          { type: "step.done", step: 1, data: {} },
        ],
        updateIntent: { id: intentId, status: "SUCCEEDED", attempt: 1, result: { refundId: "re_1" } },
      });
      expect(r2).toEqual({ stateSeq: 3, eventSeq: 4 });
      expect(await store.getIntent(intentId)).toMatchObject({
        status: "SUCCEEDED",
        result: { refundId: "re_1" },
        completedAt: expect.any(Date),
      });
      expect((await store.listCheckpoints(run.id)).map((c) => [c.seq, c.state])).toEqual([
        [1, run.state],
        [2, s1],
        [3, s2],
      ]);
      expect(await store.getCheckpoint(run.id, 2)).toMatchObject({ seq: 2, step: s1.step, state: s1 });
      expect(await store.getCheckpoint(run.id, 4)).toBeNull();
      expect(await store.getRun(run.id)).toMatchObject({
        state: s2,
        stateSeq: 3,
        eventSeq: 4,
        leaseOwner: lease.owner,
      });
    });

    it("a packet update that lost its compare-and-set throws CONFLICT and writes nothing", async () => {
      const { run, packet } = await createWaitingPacket();
      await store.decidePacket({
        workspaceId: "default",
        packetId: packet.id,
        version: packet.version,
        final: {
          status: "REJECTED",
          decision: { decision: "reject", reason: "no" },
          decidedBy: "ann",
          now: new Date(),
        },
        events: [],
      });
      const woken = await store.claimRun({
        owner: "w",
        now: new Date(Date.now() + 1_000),
        leaseMs: 10_000,
        runId: run.id,
      });
      expect(woken).not.toBeNull();
      const before = await store.getRun(run.id);
      await expectAppError(
        store.commitStep({
          lease: woken!.lease,
          status: "RUNNING",
          state: nextState(woken!.run.state),
          storedEntries: woken!.run.storedEntries,
          events: [{ type: "x", step: 0, data: {} }],
          updatePacket: { id: packet.id, version: packet.version, status: "EXPIRED" },
        }),
        "CONFLICT",
      );
      expect(await store.getRun(run.id)).toEqual(before);
      expect((await store.getPacket(packet.id, null))!.status).toBe("REJECTED");
    });
  });

  describe("trace events", () => {
    it("get consecutive per-run seqs while signals arrive between and during commits", async () => {
      const { run, lease } = await createClaimedRun();
      let state = run.state;
      const commits: Array<{ eventSeq: number; round: number }> = [];
      for (let round = 0; round < 5; round++) {
        state = nextState(state);
        const dedupKey = uid("cb");
        const signal = (n: number) =>
          store.deliverSignal({
            id: uid("sig"),
            runId: run.id,
            type: "ping",
            dedupKey: n === 2 ? uid("cb") : dedupKey,
            payload: { round },
            now: new Date(),
          });
        const [committed] = await Promise.all([
          store.commitStep({
            lease,
            status: "RUNNING",
            state,
            storedEntries: NOTHING_STORED,
            events: [
              { type: "step.a", step: round, data: { round } },
              { type: "step.b", step: round, data: { round } },
            ],
          }),
          signal(0),
          signal(1),
          signal(2),
        ]);
        commits.push({ eventSeq: committed.eventSeq, round });
      }

      const events = await store.listEvents(run.id);
      // 1 run.created + 5 rounds × (2 step events + 3 signal events)
      expect(events).toHaveLength(26);
      expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
      expect((await store.getRun(run.id))!.eventSeq).toBe(26);
      expect(events.filter((e) => e.type === "signal.received")).toHaveLength(10);
      expect(events.filter((e) => e.type === "signal.duplicate")).toHaveLength(5);
      // each commit's events sit together at the seqs it reported
      for (const { eventSeq, round } of commits) {
        const [a, b] = [events[eventSeq - 2], events[eventSeq - 1]];
        expect([a.type, a.data.round, b.type, b.data.round]).toEqual(["step.a", round, "step.b", round]);
      }
    });

    it("numbers each run's events on their own", async () => {
      const [x, y] = await Promise.all([createClaimedRun(), createClaimedRun()]);
      await Promise.all([
        commit(x.lease, nextState(x.run.state)),
        commit(y.lease, nextState(y.run.state)),
        commit(x.lease, nextState(x.run.state, { step: 2 })),
      ]);
      expect((await store.listEvents(x.run.id)).map((e) => e.seq)).toEqual([1, 2, 3]);
      expect((await store.listEvents(y.run.id)).map((e) => e.seq)).toEqual([1, 2]);
    });

    it("lists events after a seq, with a limit", async () => {
      const { run, lease } = await createClaimedRun();
      await store.commitStep({
        lease,
        status: "RUNNING",
        state: nextState(run.state),
        storedEntries: run.storedEntries,
        events: [1, 2, 3, 4].map((n) => ({ type: "e", step: 0, data: { n } })),
      });
      expect((await store.listEvents(run.id, { afterSeq: 2, limit: 2 })).map((e) => [e.seq, e.data.n])).toEqual([
        [3, 2],
        [4, 3],
      ]);
    });
  });

  describe("deliverSignal", () => {
    const deliver = (runId: string, dedupKey: string, payload: unknown = { ok: true }) =>
      store.deliverSignal({ id: uid("sig"), runId, type: "deploy.finished", dedupKey, payload, now: new Date() });

    it("stores ten deliveries of one callback once; nine are duplicates", async () => {
      const run = await createRun();
      const dedupKey = uid("cb");
      const answers = [];
      for (let i = 0; i < 10; i++) answers.push(await deliver(run.id, dedupKey, { attempt: i }));
      expect(answers.filter((a) => !a.duplicate)).toHaveLength(1);
      expect(answers.filter((a) => a.duplicate)).toHaveLength(9);
      expect(new Set(answers.map((a) => a.signal.id)).size).toBe(1);
      const signals = await store.listSignals(run.id);
      expect(signals).toHaveLength(1);
      expect(signals[0]).toMatchObject({ dedupKey, payload: { attempt: 0 }, consumedAt: null });
    });

    it("stores ten concurrent deliveries of one callback once; nine are duplicates", async () => {
      const run = await createRun();
      const dedupKey = uid("cb");
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, i) => deliver(run.id, dedupKey, { attempt: i })),
      );
      expect(answers.filter((a) => !a.duplicate)).toHaveLength(1);
      expect(answers.filter((a) => a.duplicate)).toHaveLength(9);
      expect(await store.listSignals(run.id)).toHaveLength(1);
      const events = await store.listEvents(run.id);
      expect(events.filter((e) => e.type === "signal.received")).toHaveLength(1);
      expect(events.filter((e) => e.type === "signal.duplicate")).toHaveLength(9);
      expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    });

    it("deduplicates per run: the same key on two runs is two signals", async () => {
      const [a, b] = await Promise.all([createRun(), createRun()]);
      const dedupKey = uid("cb");
      expect((await deliver(a.id, dedupKey)).duplicate).toBe(false);
      expect((await deliver(b.id, dedupKey)).duplicate).toBe(false);
    });

    it("to an unknown run is NOT_FOUND and stores nothing", async () => {
      const runId = uid("run");
      await expectAppError(deliver(runId, uid("cb")), "NOT_FOUND");
      expect(await store.listSignals(runId)).toEqual([]);
    });

    it("wakes a run waiting for its type, and not one waiting for another type", async () => {
      const now = new Date();
      const [waiting, other] = await Promise.all([createClaimedRun({ now }), createClaimedRun({ now })]);
      await store.commitStep({
        lease: waiting.lease,
        status: "WAITING_EVENT",
        waitingFor: "deploy.finished",
        state: waiting.run.state,
        storedEntries: waiting.run.storedEntries,
        releaseLease: true,
        events: [],
      });
      await store.commitStep({
        lease: other.lease,
        status: "WAITING_EVENT",
        waitingFor: "mail.bounced",
        state: other.run.state,
        storedEntries: other.run.storedEntries,
        releaseLease: true,
        events: [],
      });
      await Promise.all([deliver(waiting.run.id, uid("cb")), deliver(other.run.id, uid("cb"))]);
      const later = new Date(Date.now() + 1_000);
      expect(await store.claimRun({ owner: "w", now: later, leaseMs: 1_000, runId: waiting.run.id })).not.toBeNull();
      expect(await store.claimRun({ owner: "w", now: later, leaseMs: 1_000, runId: other.run.id })).toBeNull();
    });

    it("a run that parks for an event already delivered is woken at once", async () => {
      const { run, lease } = await createClaimedRun();
      await deliver(run.id, uid("cb"));
      await store.commitStep({
        lease,
        status: "WAITING_EVENT",
        waitingFor: "deploy.finished",
        state: run.state,
        storedEntries: run.storedEntries,
        releaseLease: true,
        events: [],
      });
      expect((await store.getRun(run.id))!.wakeAt).not.toBeNull();
    });

    it("a consumed signal is consumed once", async () => {
      const { run, lease } = await createClaimedRun();
      const { signal } = await deliver(run.id, uid("cb"));
      await store.commitStep({
        lease,
        status: "RUNNING",
        state: nextState(run.state),
        storedEntries: run.storedEntries,
        events: [],
        consumeSignalIds: [signal.id],
      });
      const [consumed] = await store.listSignals(run.id);
      expect(consumed.consumedAt).not.toBeNull();
      expect(await store.listSignals(run.id, { unconsumed: true })).toEqual([]);
    });
  });

  describe("decidePacket", () => {
    const approve = (packetId: string, version: number, by: string) =>
      store.decidePacket({
        workspaceId: "default",
        packetId,
        version,
        approver: by,
        final: { status: "APPROVED", decision: { decision: "approve", digest: "d" }, decidedBy: by, now: new Date() },
        events: [{ type: "gate.decided", step: 0, data: { packetId, by } }],
      });
    const reject = (packetId: string, version: number, by: string) =>
      store.decidePacket({
        workspaceId: "default",
        packetId,
        version,
        final: {
          status: "REJECTED",
          decision: { decision: "reject", reason: `${by} says no` },
          decidedBy: by,
          now: new Date(),
        },
        events: [{ type: "gate.decided", step: 0, data: { packetId, by } }],
      });

    it("a packet created with a step is pending at version 0", async () => {
      const { run, packet } = await createWaitingPacket({ requiredApprovals: 2 });
      expect(packet).toMatchObject({
        runId: run.id,
        status: "PENDING",
        version: 0,
        approvers: [],
        decision: null,
        decidedBy: null,
        requiredApprovals: 2,
      });
      expect(await store.getRun(run.id)).toMatchObject({ status: "WAITING_APPROVAL", leaseOwner: null });
      expect((await store.findPackets({ runId: run.id, status: ["PENDING"] })).map((p) => p.id)).toEqual([packet.id]);
    });

    it("a new packet is stored with the impact rank the engine computed (the inbox sorts on it)", async () => {
      const low = await createWaitingPacket({
        tool: "docs.search",
        traits: { capability: "read", semantics: "pure-read" },
      });
      const high = await createWaitingPacket({ tool: "payments.refund" });
      const db = createDb(url);
      try {
        const rows = await db.decisionPacket.findMany({
          where: { id: { in: [low.packet.id, high.packet.id] } },
          select: { id: true, impactRank: true },
        });
        expect(Object.fromEntries(rows.map((r) => [r.id, r.impactRank]))).toEqual({
          [low.packet.id]: 1,
          [high.packet.id]: 3,
        });
      } finally {
        await db.$disconnect();
      }
    });

    it("of two concurrent final decisions, exactly one is written", async () => {
      const { run, packet } = await createWaitingPacket();
      const results = await Promise.allSettled([
        approve(packet.id, packet.version, "ann"),
        reject(packet.id, packet.version, "bob"),
      ]);
      const { won, lost } = settled(results);
      expect(won).toHaveLength(1);
      expect(lost).toHaveLength(1);
      expect(lost[0]).toBeInstanceOf(AppError);
      expect(["PACKET_ALREADY_DECIDED", "CONFLICT"]).toContain((lost[0] as AppError).code);

      const winner = won[0].decidedBy!;
      const stored = (await store.getPacket(packet.id, null))!;
      expect(stored).toEqual(won[0]);
      expect(stored.version).toBe(1);
      if (winner === "ann")
        expect(stored).toMatchObject({ status: "APPROVED", decision: { decision: "approve" }, approvers: ["ann"] });
      else
        expect(stored).toMatchObject({
          status: "REJECTED",
          decision: { decision: "reject", reason: "bob says no" },
          approvers: [],
        });
      const decided = (await store.listEvents(run.id)).filter((e) => e.type === "gate.decided");
      expect(decided.map((e) => e.data.by)).toEqual([winner]);
    });

    it("of many concurrent approvals, exactly one is written", async () => {
      const { run, packet } = await createWaitingPacket();
      const reviewers = ["r1", "r2", "r3", "r4", "r5"];
      const { won, lost } = settled(
        await Promise.allSettled(reviewers.map((by) => approve(packet.id, packet.version, by))),
      );
      expect(won).toHaveLength(1);
      for (const error of lost) expect(["PACKET_ALREADY_DECIDED", "CONFLICT"]).toContain((error as AppError).code);
      expect((await store.getPacket(packet.id, null))!.approvers).toEqual([won[0].decidedBy]);
      expect((await store.listEvents(run.id)).filter((e) => e.type === "gate.decided")).toHaveLength(1);
    });

    it("a final decision wakes the waiting run", async () => {
      const { run, packet } = await createWaitingPacket();
      expect(
        await store.claimRun({ owner: "w", now: new Date(Date.now() + 60_000), leaseMs: 1_000, runId: run.id }),
      ).toBeNull();
      const decidedAt = new Date();
      await reject(packet.id, packet.version, "ann");
      const stored = await store.getRun(run.id);
      expect(stored!.wakeAt).not.toBeNull();
      expect(
        await store.claimRun({ owner: "w", now: new Date(decidedAt.getTime() + 1_000), leaseMs: 1_000, runId: run.id }),
      ).not.toBeNull();
    });

    it("a decided packet refuses another decision with PACKET_ALREADY_DECIDED", async () => {
      const { run, packet } = await createWaitingPacket();
      const decided = await approve(packet.id, packet.version, "ann");
      const error = await expectAppError(reject(packet.id, decided.version, "bob"), "PACKET_ALREADY_DECIDED");
      expect(error.userMessage).toContain("ann");
      expect(await store.getPacket(packet.id, null)).toEqual(decided);
      expect((await store.listEvents(run.id)).filter((e) => e.type === "gate.decided")).toHaveLength(1);
    });

    it("a decision on a stale version is a CONFLICT and writes nothing", async () => {
      const { run, packet } = await createWaitingPacket({ requiredApprovals: 2 });
      await store.decidePacket({
        workspaceId: "default",
        packetId: packet.id,
        version: 0,
        approver: "ann",
        events: [{ type: "gate.approval_recorded", step: 0, data: {} }],
      });
      const eventsBefore = await store.listEvents(run.id);
      await expectAppError(approve(packet.id, 0, "bob"), "CONFLICT");
      expect(await store.getPacket(packet.id, null)).toMatchObject({
        status: "PENDING",
        version: 1,
        approvers: ["ann"],
        decision: null,
      });
      expect(await store.listEvents(run.id)).toEqual(eventsBefore);
    });

    it("records distinct approvals for four eyes, and refuses the same approver twice", async () => {
      const { packet } = await createWaitingPacket({ requiredApprovals: 2 });
      const first = await store.decidePacket({
        workspaceId: "default",
        packetId: packet.id,
        version: 0,
        approver: "ann",
        events: [],
      });
      expect(first).toMatchObject({ status: "PENDING", version: 1, approvers: ["ann"] });
      await expectAppError(
        store.decidePacket({ workspaceId: "default", packetId: packet.id, version: 1, approver: "ann", events: [] }),
        "CONFLICT",
      );
      const second = await approve(packet.id, 1, "bob");
      expect(second).toMatchObject({ status: "APPROVED", version: 2, approvers: ["ann", "bob"], decidedBy: "bob" });
    });

    it("an unknown packet is NOT_FOUND", async () => {
      await expectAppError(approve(uid("pkt"), 0, "ann"), "NOT_FOUND");
    });
  });

  describe("permissions", () => {
    const rule = (agent: string, patch: Partial<PermissionRule> = {}) => ({
      agent,
      tool: "payments.refund",
      step: "*",
      effect: "allow" as const,
      conditions: [],
      approvals: 1,
      onExpire: "reject",
      queue: "default",
      ttlSeconds: null,
      updatedBy: "admin@test",
      ...patch,
    });
    const put = (r: ReturnType<typeof rule>, expectedVersion?: number) =>
      store.putPermission(r, { id: uid("perm"), auditId: uid("pchg"), expectedVersion });
    /** The agent's own rules (other files may leave wildcard rules in the shared database). */
    const ownRules = async (agent: string) => (await store.listPermissions({ agent })).filter((r) => r.agent === agent);

    it("every change moves the permission epoch; the rules and their epoch are read as one", async () => {
      const agent = uid("agent");
      const e0 = await store.permissionEpoch();
      const v1 = await put(rule(agent));
      expect(await store.permissionEpoch()).toBe(e0 + 1);
      const read = await store.listPermissionsAtEpoch(agent, "default");
      expect(read.epoch).toBe(e0 + 1);
      expect(read.rules.filter((r) => r.agent === agent)).toEqual([v1]);
      await store.deletePermission({ id: v1.id, changedBy: "admin@test", auditId: uid("pchg") });
      expect(await store.permissionEpoch()).toBe(e0 + 2);
      expect((await store.listPermissionsAtEpoch(agent, "default")).rules.filter((r) => r.agent === agent)).toEqual([]);
    });

    it("an intent checked at an epoch that has moved is not written (PERMISSIONS_CHANGED); at the current epoch it is", async () => {
      const { run, lease } = await createClaimedRun();
      const checkedAt = await store.permissionEpoch();
      await put(rule(uid("agent"))); // someone changes a permission between the check and the commit
      const intent = (id: string) => ({
        id,
        runId: run.id,
        step: 0,
        tool: "payments.refund",
        args: {},
        semantics: "idempotent" as const,
        decision: {},
      });
      const stale = intent(uid("op"));
      await expectAppError(
        commit(lease, nextState(run.state), { createIntent: stale, permissionEpoch: checkedAt }),
        "PERMISSIONS_CHANGED",
      );
      expect(await store.getIntent(stale.id)).toBeNull();
      expect((await store.getRun(run.id))!.stateSeq).toBe(1);
      const fresh = intent(uid("op"));
      await commit(lease, nextState(run.state), {
        createIntent: fresh,
        permissionEpoch: await store.permissionEpoch(),
      });
      expect(await store.getIntent(fresh.id)).toMatchObject({ status: "PENDING" });
    });

    it("a step's plain commit (a read's result, no intent) checked at an epoch that has moved writes nothing (PERMISSIONS_CHANGED)", async () => {
      const { run, lease } = await createClaimedRun();
      const checkedAt = await store.permissionEpoch();
      await put(rule(uid("agent")));
      await expectAppError(commit(lease, nextState(run.state), { permissionEpoch: checkedAt }), "PERMISSIONS_CHANGED");
      const after = (await store.getRun(run.id))!;
      expect(after.stateSeq).toBe(1);
      expect(after.state.step).toBe(run.state.step);
      await commit(lease, nextState(run.state), { permissionEpoch: await store.permissionEpoch() });
      expect((await store.getRun(run.id))!.stateSeq).toBe(2);
    });

    it("putting a rule twice makes version 2 of one rule, with two audit rows", async () => {
      const agent = uid("agent");
      const v1 = await put(rule(agent));
      const v2 = await put(
        rule(agent, {
          effect: "require_approval",
          conditions: [{ path: "amountCents", op: "gt", value: 10_000, effect: "deny" }],
          updatedBy: "boss@test",
        }),
      );
      expect(v1).toMatchObject({ version: 1, effect: "allow" });
      expect(v2).toMatchObject({
        id: v1.id,
        version: 2,
        effect: "require_approval",
        updatedBy: "boss@test",
        conditions: [{ path: "amountCents", op: "gt", value: 10_000, effect: "deny" }],
      });
      expect(await ownRules(agent)).toEqual([v2]);

      const changes = await store.listPermissionChanges({ permissionId: v1.id });
      expect(changes.map((c) => [c.version, c.changedBy])).toEqual([
        [2, "boss@test"],
        [1, "admin@test"],
      ]);
      const [second, first] = changes;
      expect(first.before).toBeNull();
      expect(first.after).toMatchObject({ id: v1.id, version: 1, effect: "allow" });
      expect(second.before).toMatchObject({ version: 1, effect: "allow" });
      expect(second.after).toMatchObject({ version: 2, effect: "require_approval" });
    });

    it("a put with a stale expectedVersion is a CONFLICT and changes nothing", async () => {
      const agent = uid("agent");
      const v1 = await put(rule(agent));
      await put(rule(agent, { effect: "deny" }), 1);
      await expectAppError(put(rule(agent, { effect: "allow", updatedBy: "late@test" }), 1), "CONFLICT");
      expect(await ownRules(agent)).toEqual([expect.objectContaining({ version: 2, effect: "deny" })]);
      expect(await store.listPermissionChanges({ permissionId: v1.id })).toHaveLength(2);
    });

    it("expectedVersion 0 creates a rule only if none exists", async () => {
      const agent = uid("agent");
      expect(await put(rule(agent), 0)).toMatchObject({ version: 1 });
      await expectAppError(put(rule(agent, { effect: "deny" }), 0), "CONFLICT");
      expect(await ownRules(agent)).toEqual([expect.objectContaining({ version: 1, effect: "allow" })]);
    });

    it("deleting a rule removes it and writes an audit row with after null", async () => {
      const agent = uid("agent");
      const v1 = await put(rule(agent));
      const v2 = await put(rule(agent, { effect: "deny" }));
      await store.deletePermission({ id: v1.id, changedBy: "boss@test", auditId: uid("pchg") });
      expect(await ownRules(agent)).toEqual([]);
      const [deletion] = await store.listPermissionChanges({ permissionId: v1.id });
      expect(deletion).toMatchObject({
        version: 3,
        changedBy: "boss@test",
        after: null,
        before: expect.objectContaining({ version: 2, effect: "deny" }),
      });
      expect(deletion.before).toEqual(JSON.parse(JSON.stringify(v2)));
    });

    it("a person's change writes its audit log row in the change's transaction: the saved rule's id and version, or neither", async () => {
      const agent = uid("agent");
      const note = (action: string) => (saved: PermissionRule) => ({
        actor: "boss@test",
        action,
        target: saved.id,
        data: { version: saved.version },
      });
      const v1 = await store.putPermission(rule(agent), {
        id: uid("perm"),
        auditId: uid("pchg"),
        audit: note("permissions.put"),
      });
      const rows = () =>
        t.db.auditLog.findMany({
          where: { target: v1.id },
          orderBy: { at: "asc" },
          select: { action: true, data: true },
        });
      expect(await rows()).toEqual([{ action: "permissions.put", data: JSON.stringify({ version: 1 }) }]);

      const failing = () => {
        throw new Error("the audit row cannot be written");
      };
      await expect(
        store.putPermission(rule(agent, { effect: "deny" }), { id: uid("perm"), auditId: uid("pchg"), audit: failing }),
      ).rejects.toThrow("cannot be written");
      expect(await ownRules(agent)).toEqual([expect.objectContaining({ version: 1, effect: "allow" })]);
      expect(await store.listPermissionChanges({ permissionId: v1.id })).toHaveLength(1);

      await store.deletePermission({
        id: v1.id,
        changedBy: "boss@test",
        auditId: uid("pchg"),
        audit: { actor: "boss@test", action: "permissions.remove", target: v1.id },
      });
      expect((await rows()).map((r) => r.action)).toEqual(["permissions.put", "permissions.remove"]);
    });

    it("deleting an unknown rule is NOT_FOUND and audits nothing", async () => {
      const id = uid("perm");
      await expectAppError(store.deletePermission({ id, changedBy: "boss@test", auditId: uid("pchg") }), "NOT_FOUND");
      expect(await store.listPermissionChanges({ permissionId: id })).toEqual([]);
    });

    it("lists an agent's rules together with the wildcard rules", async () => {
      const agent = uid("agent");
      const own = await put(rule(agent, { tool: "mail.send" }));
      const all = await store.listPermissions({ agent });
      expect(all).toContainEqual(own);
      expect(all.every((r) => r.agent === agent || r.agent === "*")).toBe(true);
    });
  });

  describe("transitionRun", () => {
    it("moves a run from an expected status and appends its events", async () => {
      const { run, lease } = await createClaimedRun();
      await store.commitStep({
        lease,
        status: "NEEDS_ATTENTION",
        state: run.state,
        storedEntries: run.storedEntries,
        releaseLease: true,
        events: [],
      });
      const state = nextState(run.state, { instructions: [...run.state.instructions, "resolved by a person"] });
      const moved = await store.transitionRun({
        runId: run.id,
        from: ["NEEDS_ATTENTION"],
        to: "RUNNING",
        state: { state, storedEntries: run.storedEntries },
        events: [{ type: "run.resolved", step: -1, data: { by: "ann" } }],
      });
      expect(moved).toMatchObject({ status: "RUNNING", state, stateSeq: 3, eventSeq: 2 });
      expect((await store.listEvents(run.id)).map((e) => [e.seq, e.type])).toEqual([
        [1, "run.created"],
        [2, "run.resolved"],
      ]);
      expect((await store.listCheckpoints(run.id)).at(-1)).toMatchObject({ seq: 3, state });
    });

    it("from a status the run is not in is RUN_NOT_WAITING and changes nothing", async () => {
      const run = await createRun();
      const before = await store.getRun(run.id);
      await expectAppError(
        store.transitionRun({
          runId: run.id,
          from: ["WAITING_APPROVAL", "NEEDS_ATTENTION"],
          to: "RUNNING",
          state: { state: nextState(run.state), storedEntries: run.storedEntries },
          error: "nope",
          events: [{ type: "run.resumed", step: -1, data: {} }],
        }),
        "RUN_NOT_WAITING",
      );
      expect(await store.getRun(run.id)).toEqual(before);
      expect(await store.listEvents(run.id)).toHaveLength(1);
      expect(await store.listCheckpoints(run.id)).toHaveLength(1);
    });

    it("of an unknown run is NOT_FOUND", async () => {
      await expectAppError(
        store.transitionRun({ runId: uid("run"), from: ["QUEUED"], to: "CANCELLED", events: [] }),
        "NOT_FOUND",
      );
    });

    it("of two concurrent transitions from the same status, one wins", async () => {
      const run = await createRun();
      const { won, lost } = settled(
        await Promise.allSettled([
          store.transitionRun({
            runId: run.id,
            from: ["QUEUED"],
            to: "CANCELLED",
            events: [{ type: "run.cancelled", step: -1, data: {} }],
          }),
          store.transitionRun({
            runId: run.id,
            from: ["QUEUED"],
            to: "FAILED",
            events: [{ type: "run.failed", step: -1, data: {} }],
          }),
        ]),
      );
      expect(won).toHaveLength(1);
      expect((lost[0] as AppError).code).toBe("RUN_NOT_WAITING");
      expect((await store.getRun(run.id))!.status).toBe(won[0].status);
      expect(await store.listEvents(run.id)).toHaveLength(2);
    });
  });
});
