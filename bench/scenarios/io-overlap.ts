// One worker overlaps I/O: runs whose tool waits BENCH_IO_WAIT_MS (a model, an API) are driven side
// by side, so BENCH_IO_RUNS of them finish in about the time of one. Goal: within 3× one run's time.
// Timed: worker.drain() with the worker's default concurrency, runs created beforehand.
import { num } from "../support/env";
import type { Goal } from "../support/goals";
import { fmt, printTable } from "../support/report";
import { slowAgent, slowCalls } from "../support/scenario-agents";
import type { Bench } from "../support/workload";

export type IoResult = {
  db: string;
  waitMs: number;
  steps: number;
  runs: number;
  oneMs: number;
  manyMs: number;
  ratio: number;
  peakInFlight: number;
};

let tagSeq = 0;
async function timeRuns(bench: Bench, runs: number, steps: number, waitMs: number) {
  const ids = await Promise.all(
    Array.from(
      { length: runs },
      async () =>
        (await bench.runtime.startRun({ agent: slowAgent.slug, input: { tag: `io${tagSeq++}`, steps, ms: waitMs } }))
          .run.id,
    ),
  );
  slowCalls.peak = 0;
  const t0 = performance.now();
  await bench.runtime.createWorker().drain();
  const ms = performance.now() - t0;
  for (const id of ids) {
    const run = await bench.runtime.getRun(id);
    if (run.status !== "COMPLETED" || run.state.step !== steps)
      throw new Error(`io-overlap run ${id} ended ${run.status} at step ${run.state.step}: ${run.error}`);
  }
  return { ms, peak: slowCalls.peak };
}

export async function ioOverlap(db: string, bench: Bench): Promise<IoResult> {
  const waitMs = num("BENCH_IO_WAIT_MS", 500);
  const steps = num("BENCH_IO_STEPS", 2);
  const runs = num("BENCH_IO_RUNS", 20);
  await timeRuns(bench, 2, 1, 1); // warm-up of the slow agent's path
  const one = await timeRuns(bench, 1, steps, waitMs);
  const many = await timeRuns(bench, runs, steps, waitMs);
  return { db, waitMs, steps, runs, oneMs: one.ms, manyMs: many.ms, ratio: many.ms / one.ms, peakInFlight: many.peak };
}

export function printIo(results: IoResult[]) {
  if (results.length === 0) return;
  const r0 = results[0];
  console.log(
    `\nI/O overlap (one worker, drain(); each run makes ${r0.steps} calls of a tool that waits ${r0.waitMs} ms: ${r0.steps * r0.waitMs} ms of waiting per run)`,
  );
  printTable(
    ["db", "runs", "wall s", "× one run", "tool calls in flight (peak)"],
    results.flatMap((r) => [
      [r.db, "1", fmt(r.oneMs / 1000), "1.00", "1"],
      [r.db, `${r.runs}`, fmt(r.manyMs / 1000), fmt(r.ratio), `${r.peakInFlight}`],
    ]),
  );
}

export const ioGoals = (results: IoResult[]): Goal[] =>
  results.map((r) => ({
    id: "io",
    db: r.db,
    ok: r.ratio <= 3,
    target: `one worker overlaps I/O: ${r.runs} runs of ${r.steps} × ${r.waitMs} ms calls within 3× one run`,
    figure: `${fmt(r.manyMs / 1000)} s vs ${fmt(r.oneMs / 1000)} s = ${fmt(r.ratio)}×`,
  }));
