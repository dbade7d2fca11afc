import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { refundAgent } from "./support/agents";
import { expireLeases, untilLeasesLapse } from "./support/leases";
import { createTestRuntime, grant, providers, uid } from "./support/runtime";
import { kill, spawnWorker, type WorkerProcess } from "./support/spawn-worker";
import { worldTools } from "./support/tools";
import { until } from "./support/until";
import { startWorld, type World } from "./support/world";

// A worker holds many runs at once, so a crash or a stall hits all of them mid-step. These tests do
// it to a real worker process: SIGKILL while a dozen runs have calls in flight, and SIGSTOP past the
// lease (then SIGCONT) while they wait on a slow provider. Another worker takes every run over; the
// world's ledger says each effect happened once, and the frozen worker, once resumed, neither commits
// nor calls a tool again for any run it held.

// The victim's lease. Killed or stopped with SIGTERM, it holds a long one that no stall of a loaded
// machine lapses while its calls are in flight (the test expires a dead worker's leases itself); frozen,
// it holds a short one, since the lapse is what that test is about.
const LEASE_MS = 30_000;
const FROZEN_LEASE_MS = 1_500;
const RUNS = 8;

describe.each(providers())("a worker holding many runs, crashed or frozen [%s]", (_provider, url) => {
  let world: World;
  let t: ReturnType<typeof createTestRuntime>;
  const refunder = refundAgent(uid("many-refund"));

  beforeAll(async () => {
    world = await startWorld();
    t = createTestRuntime(url, { agents: [refunder], tools: worldTools(world.url) });
    await grant(t.runtime, refunder);
  });
  afterAll(async () => {
    await t.close();
    await world.close();
  });

  async function startRefunds(n: number) {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      const orderId = uid("order");
      world.orders.set(orderId, { id: orderId, amountCents: 1000 + i, status: "paid" });
      ids.push(
        (await t.runtime.startRun({ agent: refunder.slug, input: { orderId, email: "many@example.com" } })).run.id,
      );
    }
    return ids;
  }

  async function spawnVictim(leaseMs = LEASE_MS): Promise<{ victim: WorkerProcess; owner: string }> {
    const victim = spawnWorker({
      DATABASE_URL: url,
      WORLD_URL: world.url,
      TETHER_LEASE_MS: String(leaseMs),
      TETHER_WORKER_CONCURRENCY: "32",
      AGENTS: JSON.stringify([{ kind: "refund", slug: refunder.slug }]),
    });
    const owner = (await victim.waitFor("READY")).split(" ")[1].trim();
    return { victim, owner };
  }

  const held = async (ids: string[], owner: string) =>
    (await Promise.all(ids.map((id) => t.runtime.getRun(id)))).filter((r) => r.leaseOwner === owner).length;
  const refundsArrived = (ids: string[]) =>
    world.requests.filter((r) => r.path === "/payments/refund" && ids.includes(r.runId ?? "")).length;
  const untilRefundsInFlight = (ids: string[], victim: WorkerProcess) =>
    until(() => ({ arrived: refundsArrived(ids), inFlight: world.inFlight }), {
      what: `all ${RUNS} refund calls are in flight at once`,
      holds: (seen) => seen.arrived === RUNS && seen.inFlight >= RUNS,
    }).catch((error: Error) => {
      throw new Error(`${error.message}\nthe worker's log: ${victim.stderr().slice(-3000)}`);
    });

  async function expectEachRefundedOnce(ids: string[]) {
    for (const id of ids) {
      const run = await t.runtime.getRun(id);
      expect(run.status, `${id}: ${run.error}`).toBe("COMPLETED");
      expect(world.effects("payments").filter((e) => e.runId === id)).toHaveLength(1);
      expect(world.effects("mail").filter((e) => e.runId === id)).toHaveLength(1);
      expect((await t.runtime.recoveryView(id)).mayHaveHappened).toEqual([]);
    }
  }

  it("SIGKILL while it holds every run with its refund in flight: another worker finishes them all, each refunded once", async () => {
    // Only the refunds are slow: the reads answer at once, so the eight refunds leave together and are all
    // in flight at one moment even on a loaded machine.
    Object.assign(world.faults, { latencyMs: 1_500, latencyPath: "/payments/refund" });
    try {
      const ids = await startRefunds(RUNS);
      const { victim, owner } = await spawnVictim();
      try {
        await until(() => held(ids, owner), { what: `the worker holds all ${RUNS} runs`, holds: (n) => n === RUNS });
        await untilRefundsInFlight(ids, victim);
      } finally {
        await kill(victim.child);
      }
      await expireLeases(t.db, ids);
      const claims = await t.runtime.createWorker({ leaseMs: 10_000, concurrency: 32 }).drain();
      expect(claims).toBeGreaterThanOrEqual(RUNS);
      await expectEachRefundedOnce(ids);
      // They were taken over mid-effect: each resumed from an intent whose outcome the dead worker never saw.
      for (const id of ids) expect((await t.store.listEvents(id)).map((e) => e.type)).toContain("effect.recovering");
    } finally {
      Object.assign(world.faults, { latencyMs: 0, latencyPath: undefined });
    }
  }, 60_000);

  it("SIGTERM while it holds every run with a call in flight: each finishes its step, is given back, and another worker completes it once", async () => {
    Object.assign(world.faults, { latencyMs: 1_000, latencyPath: "/payments/refund" });
    try {
      const ids = await startRefunds(RUNS);
      const { victim, owner } = await spawnVictim();
      let exitCode: number | null = null;
      try {
        await until(() => held(ids, owner), { what: `the worker holds all ${RUNS} runs`, holds: (n) => n === RUNS });
        await untilRefundsInFlight(ids, victim);
        const exited = new Promise<number | null>((resolve) => victim.child.once("exit", (code) => resolve(code)));
        victim.child.kill("SIGTERM");
        expect(await victim.waitFor("STOPPING")).toContain(`STOPPING ${RUNS}`);
        exitCode = await exited;
      } finally {
        await kill(victim.child);
      }
      expect(exitCode).toBe(0);
      // Given back at once, not left to expire: no run is held, and each refund's step was committed.
      for (const id of ids) {
        const run = await t.runtime.getRun(id);
        expect(run.leaseOwner).toBeNull();
        expect((await t.store.listIntents(id)).find((i) => i.tool === "payments.refund")?.status).toBe("SUCCEEDED");
      }
      world.faults.latencyMs = 0;
      await t.runtime.createWorker({ leaseMs: 10_000, concurrency: 32 }).drain();
      await expectEachRefundedOnce(ids);
    } finally {
      Object.assign(world.faults, { latencyMs: 0, latencyPath: undefined });
    }
  }, 60_000);

  it("SIGSTOP past its lease while calls are in flight, SIGCONT after another worker took over: it neither commits nor calls a tool again", async () => {
    // Only the refunds are slow (reads answer at once, so the eight refunds leave together), and slow enough
    // that no refund comes back before the SIGSTOP lands, or its run would send its
    // email at once, and bytes already on their way when a worker freezes are delivered when it thaws — no
    // fencing can call back a request that left (a reconcilable call's lookup cannot see it either). This
    // test is about what the woken worker does next.
    Object.assign(world.faults, { latencyMs: 1_800, latencyPath: "/payments/refund" });
    const ids = await startRefunds(RUNS);
    const { victim, owner } = await spawnVictim(FROZEN_LEASE_MS);
    try {
      await until(() => held(ids, owner), { what: `the worker holds all ${RUNS} runs`, holds: (n) => n === RUNS });
      await untilRefundsInFlight(ids, victim);
      victim.child.kill("SIGSTOP");
      await untilLeasesLapse(t.db, ids);
      world.faults.latencyMs = 0;
      await t.runtime.createWorker({ leaseMs: 10_000, concurrency: 32 }).drain();
      await expectEachRefundedOnce(ids);

      const before = await Promise.all(
        ids.map(async (id) => ({ run: await t.runtime.getRun(id), events: (await t.store.listEvents(id)).length })),
      );
      const requestsBefore = world.requests.length;
      victim.child.kill("SIGCONT");
      // The woken worker finds out, run by run, that it was fenced out (its heartbeat, or its commit
      // after the call's answer or time-out): each drive ends with "lease lost", and after that no
      // drive of it is left to call a tool or commit.
      await until(() => ids.filter((id) => victim.stderr().includes(`lease lost {"runId":"${id}"`)), {
        what: "the woken worker stands down from every run",
        holds: (gone) => gone.length === RUNS,
      });
      expect(victim.child.exitCode).toBeNull(); // still alive: it stood down, it did not crash
      expect(world.requests.slice(requestsBefore)).toEqual([]);
      for (const [i, id] of ids.entries()) {
        const run = await t.runtime.getRun(id);
        expect({ stateSeq: run.stateSeq, eventSeq: run.eventSeq, leaseOwner: run.leaseOwner }).toEqual({
          stateSeq: before[i].run.stateSeq,
          eventSeq: before[i].run.eventSeq,
          leaseOwner: before[i].run.leaseOwner,
        });
        expect((await t.store.listEvents(id)).length).toBe(before[i].events);
      }
      await expectEachRefundedOnce(ids);
    } finally {
      Object.assign(world.faults, { latencyMs: 0, latencyPath: undefined });
      await kill(victim.child);
    }
  }, 60_000);
});
