import type { Runtime } from "../../lib/runtime";
import { buildBench, type Bench } from "../support/workload";
import { STEPS, timed, type PeerFigures, type Plan } from "./workload";

// Tether: the scripted agent of bench/support/workload.ts ("bench-pure": STEPS calls of an in-process
// read tool returning ~1 KB, then complete), on its own migrated database. Timings include startRun,
// as the peers' include writing their workflow/thread's first row.

// `concurrency`: how many runs one worker drives at once (lib/runtime/worker.ts).
const worker = (runtime: Runtime, concurrency: number) => runtime.createWorker({ concurrency });

/** How many runs were between their first step and their completion at the same moment. */
function watchInFlight(bench: Bench) {
  const policy = bench.agents.pure.policy;
  const decide = policy.decide.bind(policy);
  const live = { now: 0, peak: 0 };
  policy.decide = async (input) => {
    const out = await decide(input);
    if (input.state.step === 0) live.peak = Math.max(live.peak, ++live.now);
    if (out.decision.kind === "complete") live.now--;
    return out;
  };
  return live;
}

/** `commitEachStep`: the engine's carrying of free pure reads off, so that every step has its own commit as
 *  each peer's does (lib/runtime/cursor.ts commitRead). */
export async function benchTether(url: string, plan: Plan, commitEachStep = false): Promise<PeerFigures> {
  const bench = await buildBench(url, "postgres", undefined, commitEachStep ? { carryReads: false } : {});
  const { runtime } = bench;
  const agent = bench.agents.pure.slug;
  let tag = 0;
  const start = async (steps = STEPS) => (await runtime.startRun({ agent, input: { tag: `p${tag++}`, steps } })).run.id;
  const expectDone = async (ids: string[], steps = STEPS) => {
    for (const id of ids) {
      const run = await runtime.getRun(id);
      if (run.status !== "COMPLETED" || run.state.step !== steps)
        throw new Error(`Tether run ${id} ended ${run.status} at step ${run.state.step}: ${run.error}`);
    }
  };
  try {
    const sequentialWorker = worker(runtime, 1);
    const inFlight = watchInFlight(bench);
    // One after another: start a run, drain it, start the next (the peers' `await workflow()` loop).
    const sequentially = async (n: number, ids: string[]) => {
      for (let r = 0; r < n; r++) {
        ids.push(await start());
        await sequentialWorker.drain();
      }
    };
    // All started at once (as the peers' workflows are), then one worker drives them, n at a time.
    const atOnce = async (n: number, ids: string[]) => {
      ids.push(...(await Promise.all(Array.from({ length: n }, () => start()))));
      await worker(runtime, n).drain();
    };

    const warm: string[] = [];
    await sequentially(plan.warmupRuns, warm);
    await atOnce(plan.warmupRuns, warm);
    await expectDone(warm);

    const seqIds: string[] = [];
    const sequential = await timed(plan.sequentialRuns, () => sequentially(plan.sequentialRuns, seqIds));
    await expectDone(seqIds);
    inFlight.peak = 0;
    const concIds: string[] = [];
    const concurrent = await timed(plan.concurrentRuns * plan.concurrentBatches, async () => {
      for (let b = 0; b < plan.concurrentBatches; b++) await atOnce(plan.concurrentRuns, concIds);
    });
    await expectDone(concIds);
    const peak = inFlight.peak;

    // Gate round trip, last (it changes the agent's permission): a one-step run parks on the gate;
    // timed from the person's decision to the run's next step committed (the approved call, then
    // completion), as a worker that is already idle picks it up.
    await runtime.permissions.put(
      { agent, tool: bench.agents.pure.tools[0], effect: "require_approval" },
      { by: "bench" },
    );
    const gateMs: number[] = [];
    for (let r = -3; r < plan.gateRounds; r++) {
      // 3 warm-up rounds
      const id = await start(1);
      await sequentialWorker.drain();
      const [packet] = await runtime.store.findPackets({ runId: id, status: ["PENDING"] });
      if (!packet) throw new Error(`Tether run ${id} did not park on a gate (${(await runtime.getRun(id)).status})`);
      const t0 = performance.now();
      await runtime.decidePacket({ packetId: packet.id, reviewer: "bench-reviewer", input: { decision: "approve" } });
      await sequentialWorker.drain();
      const ms = performance.now() - t0;
      await expectDone([id], 1);
      if (r >= 0) gateMs.push(ms);
    }
    return {
      sequential,
      concurrent,
      gateMs,
      notes: [
        `Tether concurrent: at most ${peak} of ${plan.concurrentRuns} runs were in flight at once${peak <= 1 ? " (the worker drove them one at a time: its concurrency option is not in effect)" : ""}`,
      ],
    };
  } finally {
    await bench.db.$disconnect();
  }
}
