import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FAULT_POINTS, type FaultPoint } from "../lib/runtime";
import { deployAgent, refundAgent } from "./support/agents";
import { expireLeases } from "./support/leases";
import { createTestRuntime, grant, providers, uid } from "./support/runtime";
import { kill, spawnWorker } from "./support/spawn-worker";
import { worldTools } from "./support/tools";
import { startWorld, type World } from "./support/world";

// Crash injection with real processes: a worker process is killed with SIGKILL at every fault point
// around an external action; a fresh worker takes over once the lease expires; the world's ledger
// says what really happened.

// Long, so that no stall of a loaded machine lapses the victim's lease before its fault point (its
// step would be fenced out and never get there); the test expires it once the victim is dead.
const LEASE_MS = 30_000;

describe.each(providers())("crash injection with SIGKILL [%s]", (_provider, url) => {
  let world: World;
  let t: ReturnType<typeof createTestRuntime>;
  const refunder = refundAgent(uid("crash-refund"));
  const deployer = deployAgent(uid("crash-deploy"));

  beforeAll(async () => {
    world = await startWorld();
    t = createTestRuntime(url, { agents: [refunder, deployer], tools: worldTools(world.url) });
    await grant(t.runtime, refunder);
    await grant(t.runtime, deployer);
  });
  afterAll(async () => {
    await t.close();
    await world.close();
  });

  /** Start a run, kill a worker process at `point` before/after `tool`, then let a fresh worker finish;
   *  `whileDead` looks at (or changes) the world between the two. */
  async function crashAt(
    point: FaultPoint,
    tool: string,
    start: () => Promise<string>,
    whileDead?: (runId: string) => Promise<void>,
  ) {
    const runId = await start();
    const victim = spawnWorker({
      TETHER_LEASE_MS: String(LEASE_MS),
      DATABASE_URL: url,
      WORLD_URL: world.url,
      TETHER_FAULT_AT: point,
      TETHER_FAULT_TOOL: tool,
      AGENTS: JSON.stringify([
        { kind: "refund", slug: refunder.slug },
        { kind: "deploy", slug: deployer.slug },
      ]),
    });
    try {
      const line = await victim.waitFor(`FAULT ${point} ${tool} ${runId}`);
      expect(line).toContain(runId);
    } finally {
      await kill(victim.child);
    }
    const orphaned = await t.runtime.getRun(runId);
    expect(orphaned.leaseOwner).not.toBeNull(); // the dead worker still "holds" it…
    await whileDead?.(runId);
    await expireLeases(t.db, [runId]); // …until its lease runs out (now, rather than in LEASE_MS)
    await t.runtime.createWorker({ leaseMs: 5_000 }).drain();
    return runId;
  }

  const startRefund = (orderId: string) => async () => {
    world.orders.set(orderId, { id: orderId, amountCents: 1500, status: "paid" });
    return (await t.runtime.startRun({ agent: refunder.slug, input: { orderId, email: "crash@example.com" } })).run.id;
  };

  for (const tool of ["payments.refund", "mail.send"]) {
    for (const point of FAULT_POINTS) {
      it(`${tool} (${tool === "mail.send" ? "reconcilable" : "idempotent"}) killed ${point}: the run completes, the effect happened exactly once`, async () => {
        const runId = await crashAt(point, tool, startRefund(uid("order")));
        const run = await t.runtime.getRun(runId);
        expect(run.status).toBe("COMPLETED");
        expect(world.effects("payments").filter((e) => e.runId === runId)).toHaveLength(1);
        expect(world.effects("mail").filter((e) => e.runId === runId)).toHaveLength(1);
        const view = await t.runtime.recoveryView(runId);
        expect(view.mayHaveHappened).toEqual([]);
        expect(view.definitelyHappened.map((i) => i.tool).sort()).toEqual(["mail.send", "payments.refund"]);
      }, 60_000);
    }
  }

  it("the order read before the refund's intent was carried (cursor.ts commitRead), so it died with the worker: the next one reads it again and refunds what it reads then, once", async () => {
    const orderId = uid("order");
    const runId = await crashAt("before-intent", "payments.refund", startRefund(orderId), async (runId) => {
      // To be committed with the intent that never came: nothing of the read is stored.
      const killed = await t.runtime.getRun(runId);
      expect(killed.state.step).toBe(0);
      expect(killed.state.facts).toEqual([]);
      expect((await t.store.listEvents(runId)).map((e) => e.type)).not.toContain("tool.call");
      world.orders.set(orderId, { id: orderId, amountCents: 1200, status: "paid" });
    });
    expect((await t.runtime.getRun(runId)).status).toBe("COMPLETED");
    const refunds = world.effects("payments").filter((e) => e.runId === runId);
    expect(refunds).toHaveLength(1);
    expect(refunds[0].data).toMatchObject({ amountCents: 1200 });
  }, 60_000);

  for (const point of FAULT_POINTS) {
    it(`deploy.migrate (unsafe) killed ${point}: never repeated; an unknown outcome asks a person`, async () => {
      const runId = await crashAt(
        point,
        "deploy.migrate",
        async () => (await t.runtime.startRun({ agent: deployer.slug, input: { migration: uid("m") } })).run.id,
      );
      const run = await t.runtime.getRun(runId);
      const applied = world.effects("deploys").filter((e) => e.runId === runId);
      expect(applied.length).toBeLessThanOrEqual(1);
      if (point === "after-intent" || point === "after-call") {
        // The intent was committed but no result: it may have happened, and repeating it is unsafe.
        expect(applied).toHaveLength(point === "after-call" ? 1 : 0);
        expect(run.status).toBe("NEEDS_ATTENTION");
        const [packet] = await t.store.findPackets({ runId, status: ["PENDING"] });
        expect(packet).toMatchObject({ kind: "UNKNOWN_OUTCOME", tool: "deploy.migrate" });
        const view = await t.runtime.recoveryView(runId);
        expect(view.mayHaveHappened).toHaveLength(1);
        expect(view.safeNext.map((s) => s.action)).toContain("decide_packet");
      } else {
        // Before the intent nothing happened yet; after the commit the result is known.
        expect(applied).toHaveLength(1);
        expect(run.status).toBe("WAITING_EVENT");
      }
    }, 60_000);
  }
});
