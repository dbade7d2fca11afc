// The gate round trip: a run parks on an approval (bench-gate's read is `require_approval`), a person
// approves, and the run's next step (the approved call) commits. Measured against a started worker
// (worker.start(), the long-lived loop): what is timed is the wake-up path, not a drain. Its fallback
// poll is set to BENCH_POLL_MS (default 60 s), so a wake-up that does not arrive shows as a timeout
// instead of hiding behind a poll. Timed from runtime.decidePacket(...) returning (the decision is
// committed) to the worker's commitStep of the approved step resolving (committed, visible to any
// reader). The tool is in-process and instant: all of it is runtime overhead. Goal (Postgres): ≤ 5 ms.
import { ROUND_TIMEOUT_MS, sleep, withStartedWorker } from "../support/commits";
import { num } from "../support/env";
import type { Goal } from "../support/goals";
import { fmt, printLatencies, stats, type LatencyStats } from "../support/report";
import { gateAgent } from "../support/scenario-agents";
import { CallTimeline, printRoundTimeline, type TimelineEntry } from "../support/timeline";
import type { Bench } from "../support/workload";

/** The rounds of a gate scenario: BENCH_GATE_ROUNDS measured after a few warm-up ones, BENCH_IDLE_GAP_MS apart. */
export const gateRounds = () => ({
  rounds: num("BENCH_GATE_ROUNDS", 50),
  warm: 5,
  gapMs: num("BENCH_IDLE_GAP_MS", 20),
});

/** A person approves the packet: when the call started (t0) and when it returned, the decision committed (t1). */
export async function approveTimed(runtime: Bench["runtime"], packetId: string): Promise<{ t0: number; t1: number }> {
  const t0 = performance.now();
  await runtime.decidePacket({ packetId, reviewer: "bench-reviewer", input: { decision: "approve" } });
  return { t0, t1: performance.now() };
}

export type GateResult = {
  db: string;
  rounds: number;
  /** decidePacket returned → approved step committed (the goal). */
  roundTrip: LatencyStats;
  /** decidePacket called → returned (the decision's own transaction). */
  decide: LatencyStats;
  /** decidePacket called → approved step committed. */
  fromCall: LatencyStats;
  /** Rounds whose step did not commit within the timeout (a wake-up that never came). */
  missed: number;
  /** claimRuns / nextRunnableAt calls from decide to completion (one claim is needed). */
  claimsPerRound: number;
  nextRunnableAtPerRound: number;
  /** The store calls from the decision returned to the step committed (medians over rounds). */
  timeline: TimelineEntry[];
};

let tagSeq = 0;

export async function gateRoundTrip(db: string, bench: Bench): Promise<GateResult> {
  const { rounds, warm, gapMs } = gateRounds();
  const { runtime } = bench;
  const timeline = new CallTimeline(bench.onStoreCall);
  const roundTrip: number[] = [],
    decide: number[] = [],
    fromCall: number[] = [];
  let missed = 0;
  let claims = 0,
    nexts = 0; // store calls during measured rounds: one claim is needed per round trip
  const calls = () => [bench.storeCalls.claimRuns ?? 0, bench.storeCalls.nextRunnableAt ?? 0];
  try {
    await withStartedWorker(bench, async (log) => {
      for (let r = -warm; r < rounds; r++) {
        const { run } = await runtime.startRun({ agent: gateAgent.slug, input: { tag: `gate${tagSeq++}`, steps: 1 } });
        const parked = await log.until(run.id, (c) => c.status === "WAITING_APPROVAL", ROUND_TIMEOUT_MS);
        if (!parked?.packetId)
          throw new Error(
            `gate run ${run.id} did not park on an approval within ${ROUND_TIMEOUT_MS} ms (${(await runtime.getRun(run.id)).status})`,
          );
        await sleep(gapMs); // the worker is idle again: it has given the run back and gone to sleep
        const [c0, n0] = calls();
        timeline.begin();
        const { t0, t1 } = await approveTimed(runtime, parked.packetId);
        const stepped = await log.until(run.id, (c) => c.step >= 1, ROUND_TIMEOUT_MS);
        const done = await log.until(run.id, (c) => c.status === "COMPLETED", ROUND_TIMEOUT_MS);
        if (r >= 0) {
          const [c1, n1] = calls();
          claims += c1 - c0;
          nexts += n1 - n0;
        }
        if (!stepped || !done) {
          if (r >= 0) missed++;
          await runtime.createWorker().drain(); // recover the round, so the next one starts idle
        } else if (r >= 0) {
          timeline.end(t0, stepped.at, t1);
          roundTrip.push(stepped.at - t1);
          decide.push(t1 - t0);
          fromCall.push(stepped.at - t0);
        }
        log.forget(run.id);
      }
    });
  } finally {
    timeline.close();
  }
  return {
    db,
    rounds,
    roundTrip: stats(roundTrip),
    decide: stats(decide),
    fromCall: stats(fromCall),
    missed,
    claimsPerRound: claims / rounds,
    nextRunnableAtPerRound: nexts / rounds,
    timeline: timeline.summary(),
  };
}

export function printGate(results: GateResult[]) {
  if (results.length === 0) return;
  const title = `Gate round trip (started worker; a run parked on an approval → decidePacket → the approved step committed; ${results[0].rounds} rounds, worker idle before each)`;
  printLatencies(title, "interval", results, (r) => [
    ["decide returned → step committed", r.roundTrip],
    ["decidePacket itself", r.decide],
    ["decide called → step committed", r.fromCall],
  ]);
  for (const r of results) {
    printRoundTimeline(r.db, r.timeline, r.rounds - r.missed, {
      zero: "decidePacket",
      end: "step committed",
      endP50: r.roundTrip.p50,
    });
    console.log(
      `  ${r.db}: ${fmt(r.claimsPerRound)} claims and ${fmt(r.nextRunnableAtPerRound)} next-runnable queries per round trip (one claim is needed)${r.missed ? `; ${r.missed} rounds MISSED (no commit within ${ROUND_TIMEOUT_MS / 1000} s)` : ""}`,
    );
  }
}

export const gateGoals = (results: GateResult[]): Goal[] =>
  results
    .filter((r) => r.db === "postgres")
    .map((r) => ({
      id: "gate",
      db: r.db,
      ok: r.missed === 0 && r.roundTrip.p50 <= 5,
      target: "gate round trip ≤ 5 ms of runtime overhead (decision returned → next step committed, p50)",
      figure: `p50 ${fmt(r.roundTrip.p50)} ms, p95 ${fmt(r.roundTrip.p95)} ms${r.missed ? `, ${r.missed} of ${r.rounds} rounds missed` : ""}`,
    }));
