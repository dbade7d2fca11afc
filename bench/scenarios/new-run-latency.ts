// New-run latency: how soon a started worker (worker.start(), idle) takes a new run and commits its
// first step. A bench-pure run of one tool step is started with runtime.startRun (what POST /api/runs
// calls); timed from startRun returning (the run is committed) to the commit of its first step
// resolving in the worker, and split at the moment the policy is first asked (the worker has woken,
// claimed the run and loaded it). Fallback poll BENCH_POLL_MS (60 s): a missed wake-up is a timeout,
// not a poll. Goal: first step within 10 ms of the start (p50).
import { ROUND_TIMEOUT_MS, sleep, withStartedWorker } from "../support/commits";
import { num } from "../support/env";
import type { Goal } from "../support/goals";
import { fmt, type LatencyStats, printLatencies, stats } from "../support/report";
import { CallTimeline, printRoundTimeline, type TimelineEntry } from "../support/timeline";
import type { Bench } from "../support/workload";

export type NewRunResult = {
  db: string;
  runs: number;
  /** startRun called → returned (the run's creation). */
  create: LatencyStats;
  /** startRun returned → the policy asked for step 0 (wake-up + claim + load). */
  pickup: LatencyStats;
  /** startRun returned → first step committed (the goal). */
  firstStep: LatencyStats;
  /** startRun called → first step committed (≈ POST → first step, HTTP aside). */
  fromCall: LatencyStats;
  missed: number;
  claimsPerRun: number;
  /** The store calls from startRun returned to the first step committed (medians over runs). */
  timeline: TimelineEntry[];
};

let tagSeq = 0;

export async function newRunLatency(db: string, bench: Bench): Promise<NewRunResult> {
  const runs = num("BENCH_LATENCY_RUNS", 50);
  const warm = 5;
  const gapMs = num("BENCH_IDLE_GAP_MS", 20);
  const { runtime } = bench;
  const policy = bench.agents.pure.policy;
  const decide = policy.decide;
  const askedAt = new Map<string, number>();
  policy.decide = (input) => {
    if (input.state.step === 0) askedAt.set((input.state.input as { tag: string }).tag, performance.now());
    return decide.call(policy, input);
  };
  const timeline = new CallTimeline(bench.onStoreCall);
  const create: number[] = [],
    pickup: number[] = [],
    firstStep: number[] = [],
    fromCall: number[] = [];
  let missed = 0,
    claims = 0;
  try {
    await withStartedWorker(bench, async (log) => {
      for (let r = -warm; r < runs; r++) {
        await sleep(gapMs); // an idle worker, asleep until woken
        const tag = `new${tagSeq++}`;
        const c0 = bench.storeCalls.claimRuns ?? 0;
        timeline.begin();
        const t0 = performance.now();
        const { run } = await runtime.startRun({ agent: bench.agents.pure.slug, input: { tag, steps: 1 } });
        const t1 = performance.now();
        const first = await log.until(run.id, (c) => c.step >= 1, ROUND_TIMEOUT_MS);
        const done = await log.until(run.id, (c) => c.status === "COMPLETED", ROUND_TIMEOUT_MS);
        if (!first || !done) {
          if (r >= 0) missed++;
          await runtime.createWorker().drain();
        } else if (r >= 0) {
          timeline.end(t0, first.at, t1);
          claims += (bench.storeCalls.claimRuns ?? 0) - c0;
          create.push(t1 - t0);
          pickup.push((askedAt.get(tag) ?? NaN) - t1);
          firstStep.push(first.at - t1);
          fromCall.push(first.at - t0);
        }
        askedAt.delete(tag);
        log.forget(run.id);
      }
    });
  } finally {
    policy.decide = decide;
    timeline.close();
  }
  return {
    db,
    runs,
    create: stats(create),
    pickup: stats(pickup),
    firstStep: stats(firstStep),
    fromCall: stats(fromCall),
    missed,
    claimsPerRun: claims / Math.max(1, runs - missed),
    timeline: timeline.summary(),
  };
}

export function printNewRun(results: NewRunResult[]) {
  if (results.length === 0) return;
  const title = `New-run latency (started worker, idle; runtime.startRun of a one-step bench-pure run → its first step committed; ${results[0].runs} runs)`;
  printLatencies(title, "interval", results, (r) => [
    ["startRun returned → first step committed", r.firstStep],
    ["  of which: returned → policy asked", r.pickup],
    ["startRun itself", r.create],
    ["startRun called → first step committed", r.fromCall],
  ]);
  for (const r of results)
    printRoundTimeline(r.db, r.timeline, r.runs - r.missed, {
      zero: "startRun",
      end: "first step committed",
      endP50: r.firstStep.p50,
    });
  for (const r of results)
    console.log(
      `  ${r.db}: ${fmt(r.claimsPerRun)} claims per new run (one is needed)${r.missed ? `; ${r.missed} runs MISSED (no first step within ${ROUND_TIMEOUT_MS / 1000} s)` : ""}`,
    );
}

export const newRunGoals = (results: NewRunResult[]): Goal[] =>
  results.map((r) => ({
    id: "latency",
    db: r.db,
    ok: r.missed === 0 && r.firstStep.p50 <= 10,
    target: "a new run's first step within 10 ms of its start (startRun returned → first step committed, p50)",
    figure: `p50 ${fmt(r.firstStep.p50)} ms, p95 ${fmt(r.firstStep.p95)} ms${r.missed ? `, ${r.missed} of ${r.runs} missed` : ""}`,
  }));
