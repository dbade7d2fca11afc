import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { ToolError, createRuntime, type RunStatus, type ToolDefinition } from "../lib/runtime";
import { refundAgent, scriptedAgent } from "./support/agents";
import { createTestRuntime, grant, providers, uid } from "./support/runtime";
import { untilLeasesLapse } from "./support/leases";
import { kill, spawnWorker } from "./support/spawn-worker";
import { worldTools } from "./support/tools";
import { UNTIL_MS, until } from "./support/until";
import { startWorld, type World } from "./support/world";

// The worker drives many runs at once and is woken by events, not by its poll. Every started worker
// here polls once an hour: whatever moves a run in these tests is a wake-up or a timer.

const HOUR = 3_600_000;

/** A read whose calls all wait until `size` of them are waiting at once: only a worker that holds
 *  that many runs at the same time gets through (one run at a time would time out here). */
function barrierTool(size: number): ToolDefinition<Record<string, never>> {
  let waiting: Array<() => void> = [];
  return {
    name: "test.barrier",
    description: "waits for company",
    capability: "read",
    semantics: "pure-read",
    input: z.object({}),
    impact: () => "waits",
    run: () =>
      new Promise((resolve, reject) => {
        const timeout = setTimeout(
          () => reject(new ToolError("rejected", `only ${waiting.length} of ${size} calls arrived together`)),
          UNTIL_MS,
        );
        waiting.push(() => {
          clearTimeout(timeout);
          resolve({ met: size });
        });
        if (waiting.length === size) {
          for (const go of waiting) go();
          waiting = [];
        }
      }),
  };
}

/** A read that takes a little while and counts how many of its calls are in flight at once. */
function countingTool() {
  const seen = { inFlight: 0, max: 0, calls: 0 };
  const tool: ToolDefinition<Record<string, never>> = {
    name: "test.slow",
    description: "slow read",
    capability: "read",
    semantics: "pure-read",
    input: z.object({}),
    impact: () => "reads slowly",
    run: async () => {
      seen.calls++;
      seen.max = Math.max(seen.max, ++seen.inFlight);
      await new Promise((r) => setTimeout(r, 30));
      seen.inFlight--;
      return { ok: true };
    },
  };
  return { tool, seen };
}

/** A read whose calls wait until the test lets them go. */
function heldTool() {
  const held: Array<() => void> = [];
  const tool: ToolDefinition<Record<string, never>> = {
    name: "test.held",
    description: "waits to be let go",
    capability: "read",
    semantics: "pure-read",
    input: z.object({}),
    impact: () => "waits",
    run: () => new Promise((resolve) => held.push(() => resolve({ released: true }))),
  };
  return { tool, held, release: () => held.splice(0).forEach((go) => go()) };
}

describe.each(providers())("the worker [%s]", (provider, url) => {
  const barrier = barrierTool(10);
  const counting = countingTool();
  const hold = heldTool();
  const call = (tool: string) => ({ kind: "call" as const, tool, args: {}, evidence: [] });
  const together = scriptedAgent(uid("together"), [barrier.name], [call(barrier.name)]);
  const slow = scriptedAgent(uid("slow"), [counting.tool.name], [call(counting.tool.name), call(counting.tool.name)]);
  const held = scriptedAgent(uid("held"), [hold.tool.name], [call(hold.tool.name)]);
  const sleeper = scriptedAgent(uid("sleeper"), [], [{ kind: "sleep", durationMs: 300 }]);
  const waiter = scriptedAgent(uid("waiter"), [], [{ kind: "wait_event", eventType: "ping" }]);
  const asker = scriptedAgent(uid("asker"), [counting.tool.name], [call(counting.tool.name)]);
  const pauseTool: ToolDefinition<{ ms: number }> = {
    name: "test.pause",
    description: "waits as long as asked",
    capability: "read",
    semantics: "pure-read",
    input: z.object({ ms: z.number() }),
    impact: () => "waits",
    run: async ({ ms }) => {
      await new Promise((r) => setTimeout(r, ms));
      return { waited: ms };
    },
  };
  const pause = scriptedAgent(
    uid("pause"),
    [pauseTool.name],
    [
      ({ state }) => ({
        kind: "call",
        tool: pauseTool.name,
        args: { ms: (state.input as { ms: number }).ms },
        evidence: [],
      }),
    ],
  );
  const longSleeper = scriptedAgent(uid("long-sleeper"), [], [{ kind: "sleep", durationMs: 1_500 }]);
  let t: ReturnType<typeof createTestRuntime>;

  const log: string[] = [];
  beforeAll(async () => {
    const logger = {
      info: (m: string, d?: object) => log.push(`${m} ${JSON.stringify(d)}`),
      warn: (m: string, d?: object) => log.push(`${m} ${JSON.stringify(d)}`),
      error: (m: string, d?: object) => log.push(`${m} ${JSON.stringify(d)}`),
    };
    t = createTestRuntime(url, {
      agents: [together, slow, held, sleeper, waiter, asker, pause, longSleeper],
      tools: [barrier, counting.tool, hold.tool, pauseTool],
      logger,
    });
    for (const agent of [together, slow, held, pause]) await grant(t.runtime, agent);
    await grant(t.runtime, asker, { [counting.tool.name]: { effect: "require_approval" } });
  });
  afterAll(() => t.close());

  const start = async (agent: { slug: string }, n: number) =>
    Promise.all(
      Array.from({ length: n }, async () => (await t.runtime.startRun({ agent: agent.slug, input: null })).run.id),
    );
  const statuses = async (ids: string[]) => Promise.all(ids.map(async (id) => (await t.runtime.getRun(id)).status));
  const allAre = async (ids: string[], status: RunStatus) => (await statuses(ids)).every((s) => s === status);

  it("drives as many runs at once as its concurrency: ten runs that can only finish together do", async () => {
    const ids = await start(together, 10);
    await t.runtime.createWorker({ concurrency: 10 }).drain();
    expect(await statuses(ids)).toEqual(Array(10).fill("COMPLETED"));
  });

  it("never holds more runs than its concurrency", async () => {
    counting.seen.max = 0;
    const ids = await start(slow, 9);
    await t.runtime.createWorker({ concurrency: 3 }).drain();
    expect(await statuses(ids)).toEqual(Array(9).fill("COMPLETED"));
    expect(counting.seen.max).toBe(3);
  });

  describe("started, polling once an hour", () => {
    let worker: ReturnType<typeof t.runtime.createWorker>;
    beforeAll(() => {
      worker = t.runtime.createWorker({ pollMs: HOUR, concurrency: 16 });
      worker.start();
    });
    afterAll(() => worker.stop());

    it("takes a new run at once", async () => {
      const ids = await start(slow, 3);
      await until("the new runs complete", () => allAre(ids, "COMPLETED"));
    });

    it("wakes a run when a person decides its packet", async () => {
      const [id] = await start(asker, 1);
      await until("the run waits for approval", () => allAre([id], "WAITING_APPROVAL"));
      const [packet] = await t.store.findPackets({ runId: id, status: ["PENDING"] });
      await t.runtime.decidePacket({
        packetId: packet.id,
        reviewer: "rita@example.com",
        input: { decision: "approve" },
      });
      await until("the approved run completes", () => allAre([id], "COMPLETED"));
    });

    it("wakes a sleeping run when its timer is due", async () => {
      const [id] = await start(sleeper, 1);
      await until("the run sleeps", () => allAre([id], "SLEEPING"));
      await until("the timer fires and the run completes", () => allAre([id], "COMPLETED")).catch(async (error) => {
        const run = await t.db.run.findUniqueOrThrow({
          where: { id },
          select: { status: true, wakeAt: true, runnableAt: true, leaseOwner: true },
        });
        throw new Error(
          `${error.message}: ${JSON.stringify(run)}, ${worker.inFlight} in flight, now ${new Date().toISOString()}; log: ${log.join(" | ")}`,
        );
      });
    });

    it("wakes a run when the signal it waits for arrives", async () => {
      const [id] = await start(waiter, 1);
      await until("the run waits for its event", () => allAre([id], "WAITING_EVENT"));
      await t.runtime.deliverSignal(id, { type: "ping", dedupKey: uid("ping") });
      await until("the signalled run completes", () => allAre([id], "COMPLETED"));
    });
  });

  it("a timer further away than the poll fires on time while runs keep being given back", async () => {
    // Runs ending every ~150 ms wake the worker's sleep each time; neither that nor the poll may
    // push the sleeper's timer away.
    const worker = t.runtime.createWorker({ pollMs: 1_000, concurrency: 64 });
    const churn = await Promise.all(
      Array.from(
        { length: 30 },
        async (_, i) => (await t.runtime.startRun({ agent: pause.slug, input: { ms: 200 + i * 150 } })).run.id,
      ),
    );
    const [id] = await start(longSleeper, 1);
    worker.start();
    try {
      await until("the sleeper completes", () => allAre([id], "COMPLETED"));
      const fired = (await t.store.listEvents(id)).find((e) => e.type === "timer.fired");
      expect(fired?.data.lateMs).toBeLessThan(1_000);
      await until("the churning runs complete", () => allAre(churn, "COMPLETED"));
    } finally {
      await worker.stop();
    }
  });

  it("stop(): every run in hand finishes its step and is given back, for another worker to finish", async () => {
    const worker = t.runtime.createWorker({ pollMs: HOUR, concurrency: 8 });
    const ids = await start(held, 4);
    worker.start();
    await until("every run is in its tool call", () => hold.held.length === 4);
    const stopped = worker.stop();
    hold.release();
    await stopped;
    for (const id of ids) {
      const run = await t.runtime.getRun(id);
      expect(run).toMatchObject({ status: "RUNNING", leaseOwner: null });
      expect(run.state.step).toBe(1); // the step in hand was committed; the next one was not taken
    }
    await t.runtime.createWorker().drain();
    expect(await statuses(ids)).toEqual(Array(4).fill("COMPLETED"));
  });

  it("drain() does not end while a run it gave back during its last claim is still runnable", async () => {
    // drain() claims again while a drive is under way. That claim cannot see the run (it is held),
    // and here its empty answer arrives only after the drive gave the run back: nothing proves the run
    // finished, so drain() must ask once more instead of returning with the run left RUNNING.
    let claimsAsked = 0;
    const late = createRuntime({
      store: {
        ...t.store,
        claimRuns: async (o) => {
          const claims = await t.store.claimRuns(o);
          if (++claimsAsked === 2) await until("the first drive gives the run back", () => worker.inFlight === 0);
          return claims;
        },
      },
      agents: [slow],
      tools: [counting.tool],
      retryBaseDelayMs: 5,
    });
    const worker = late.createWorker({ maxStepsPerClaim: 1 });
    const [id] = await start(slow, 1);
    await worker.drain();
    expect(claimsAsked).toBeGreaterThan(2);
    expect(await statuses([id])).toEqual(["COMPLETED"]);
  });

  it("never drives a run twice: a run whose lease lapsed while its call was in flight is not claimed again by the worker still in that call", async () => {
    // Every heartbeat fails (the database did not answer): the lease runs out in the database while
    // the call waits, and the run becomes claimable. The worker polls every 20 ms, so without the
    // guard it would claim the run again and call the tool a second time.
    const claimed: string[] = [];
    let claimsAsked = 0;
    const stalled = createRuntime({
      store: {
        ...t.store,
        renewLeases: async () => {
          throw new Error("the database did not answer (test)");
        },
        claimRuns: async (o) => {
          const claims = await t.store.claimRuns(o);
          claimsAsked++;
          claimed.push(...claims.map((c) => c.run.id));
          return claims;
        },
      },
      agents: [held],
      tools: [hold.tool],
      retryBaseDelayMs: 5,
    });
    const worker = stalled.createWorker({ leaseMs: 300, pollMs: 20, concurrency: 4 });
    const [id] = await start(held, 1);
    worker.start();
    try {
      await until("the run is in its call", () => hold.held.length === 1);
      await untilLeasesLapse(t.db, [id]); // the lease did lapse
      const before = claimsAsked;
      await until(() => claimsAsked, {
        what: "the worker asks for runs ten more times while the run is claimable",
        holds: (n) => n >= before + 10,
      });
      expect(claimed.filter((c) => c === id)).toHaveLength(1); // no claim but the first returned the run
      expect(hold.held.length).toBe(1); // and no second drive called the tool
      hold.release();
      await until("the one drive completes the run", () => allAre([id], "COMPLETED"));
      expect((await t.store.listEvents(id)).filter((e) => e.type === "tool.call")).toHaveLength(1);
    } finally {
      hold.release();
      await worker.stop();
    }
  });

  describe.runIf(provider === "postgres")("across processes", () => {
    let world: World;
    beforeAll(async () => {
      world = await startWorld();
    });
    afterAll(() => world.close());

    it("a worker in another process, polling once an hour, takes a new run at once (LISTEN/NOTIFY)", async () => {
      const refunder = refundAgent(uid("notified-refund"));
      const local = createTestRuntime(url, { agents: [refunder], tools: worldTools(world.url) });
      await grant(local.runtime, refunder);
      const other = spawnWorker({
        DATABASE_URL: url,
        WORLD_URL: world.url,
        TETHER_POLL_MS: String(HOUR),
        AGENTS: JSON.stringify([{ kind: "refund", slug: refunder.slug }]),
      });
      try {
        await other.waitFor("LISTENING");
        world.orders.set("ord-notify", { id: "ord-notify", amountCents: 500, status: "paid" });
        const { run } = await local.runtime.startRun({
          agent: refunder.slug,
          input: { orderId: "ord-notify", email: "n@example.com" },
        });
        await until(
          "the other process completes the run",
          async () => (await local.runtime.getRun(run.id)).status === "COMPLETED",
        );
        expect(world.effects("payments").filter((e) => e.runId === run.id)).toHaveLength(1);
      } finally {
        await kill(other.child);
        await local.close();
      }
    }, 30_000);
  });
});
