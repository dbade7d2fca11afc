import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { refundAgent } from "./support/agents";
import { createTestRuntime, grant, providers, uid } from "./support/runtime";
import { kill, spawnWorker, type WorkerProcess } from "./support/spawn-worker";
import { worldTools } from "./support/tools";
import { until } from "./support/until";
import { startWorld, type World } from "./support/world";

// A rolling deploy sends SIGTERM to a process that holds runs mid-step. It drains the way the console and
// `npm run worker` do (lib/lifecycle/shutdown.ts, which tests/support/crash-worker.ts installs): it stops
// claiming, lets each step in hand commit, gives the runs back and exits. Another worker process, already
// running, takes them over at once — within 2 s of the exit, against a 30 s lease — and the world's
// ledger says every effect happened exactly once. Postgres: the production store for many processes.

const LEASE_MS = 30_000;
const RUNS = 6;
const TAKEOVER_MS = 2_000;
const postgres = providers().filter(([provider]) => provider === "postgres");

describe.skipIf(postgres.length === 0).each(postgres)(
  "SIGTERM on a worker holding runs mid-step [%s]",
  (_provider, url) => {
    let world: World;
    let t: ReturnType<typeof createTestRuntime>;
    const refunder = refundAgent(uid("drain-refund"));
    const spawned: WorkerProcess[] = [];

    beforeAll(async () => {
      world = await startWorld();
      t = createTestRuntime(url, { agents: [refunder], tools: worldTools(world.url) });
      await grant(t.runtime, refunder);
    });
    afterAll(async () => {
      for (const w of spawned) await kill(w.child);
      await t.close();
      await world.close();
    });

    async function spawn(): Promise<{ worker: WorkerProcess; owner: string }> {
      const worker = spawnWorker({
        DATABASE_URL: url,
        WORLD_URL: world.url,
        TETHER_LEASE_MS: String(LEASE_MS),
        TETHER_POLL_MS: "1000",
        TETHER_SHUTDOWN_MS: "20000",
        TETHER_WORKER_CONCURRENCY: "32",
        AGENTS: JSON.stringify([{ kind: "refund", slug: refunder.slug }]),
      });
      spawned.push(worker);
      const owner = (await worker.waitFor("READY")).split(" ")[1].trim();
      await worker.waitFor("LISTENING"); // its LISTEN connection is up: it hears a run given back
      return { worker, owner };
    }

    it("the runs are given back as their steps commit, another worker finishes them within 2 s of the exit, each effect once", async () => {
      // Only the refunds are slow, so every run is mid-step (its refund in flight) when the signal lands.
      Object.assign(world.faults, { latencyMs: 1_500, latencyPath: "/payments/refund" });
      try {
        // The one that takes over: a separate process, up and listening, frozen while the runs start so the
        // first worker claims them all; thawed (idle: every run is leased for 30 s) before the signal.
        const { worker: heir, owner: heirOwner } = await spawn();
        heir.child.kill("SIGSTOP");
        const { worker: victim, owner: victimOwner } = await spawn();
        const ids: string[] = [];
        for (let i = 0; i < RUNS; i++) {
          const orderId = uid("order");
          world.orders.set(orderId, { id: orderId, amountCents: 2000 + i, status: "paid" });
          ids.push(
            (await t.runtime.startRun({ agent: refunder.slug, input: { orderId, email: "drain@example.com" } })).run.id,
          );
        }
        const heldBy = async (owner: string) =>
          (await Promise.all(ids.map((id) => t.runtime.getRun(id)))).filter((r) => r.leaseOwner === owner).length;
        await until("the first worker holds every run", async () => (await heldBy(victimOwner)) === RUNS);
        await until(
          "every refund is in flight",
          () =>
            world.requests.filter((r) => r.path === "/payments/refund" && ids.includes(r.runId ?? "")).length ===
              RUNS && world.inFlight >= RUNS,
        );
        heir.child.kill("SIGCONT");
        expect(await heldBy(heirOwner)).toBe(0);

        const exited = new Promise<{ code: number | null; at: number }>((resolve) =>
          victim.child.once("exit", (code) => resolve({ code, at: Date.now() })),
        );
        const signalledAt = Date.now();
        victim.child.kill("SIGTERM");
        expect(await victim.waitFor("STOPPING")).toContain(`STOPPING ${RUNS}`);
        const exit = await exited;
        expect(exit.code).toBe(0);
        expect(exit.at - signalledAt, "exited well within its lease").toBeLessThan(LEASE_MS / 2);

        // Each refund step was committed by the first worker before it let go: nothing is in doubt.
        for (const id of ids)
          expect((await t.store.listIntents(id)).find((i) => i.tool === "payments.refund")?.status).toBe("SUCCEEDED");

        let completedAt = 0;
        await until(
          "another worker completes every run",
          async () => {
            const runs = await Promise.all(ids.map((id) => t.runtime.getRun(id)));
            if (runs.every((r) => r.status === "COMPLETED")) completedAt = Date.now();
            return completedAt > 0;
          },
          LEASE_MS,
        );
        expect(completedAt - exit.at, `finished ${completedAt - exit.at} ms after the exit`).toBeLessThan(TAKEOVER_MS);

        for (const id of ids) {
          expect(world.effects("payments").filter((e) => e.runId === id)).toHaveLength(1);
          expect(world.effects("mail").filter((e) => e.runId === id)).toHaveLength(1);
          expect((await t.runtime.recoveryView(id)).mayHaveHappened).toEqual([]);
          const types = (await t.store.listEvents(id)).map((e) => e.type);
          expect(types).not.toContain("effect.recovering"); // taken over between steps, not mid-effect
        }
        // Only one refund request per run ever left: the heir did not call it again.
        expect(world.requests.filter((r) => r.path === "/payments/refund" && ids.includes(r.runId ?? ""))).toHaveLength(
          RUNS,
        );
      } finally {
        Object.assign(world.faults, { latencyMs: 0, latencyPath: undefined });
      }
    }, 90_000);
  },
);
