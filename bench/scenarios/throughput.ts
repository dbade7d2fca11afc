// Throughput rows of the main table: durable steps driven by ONE worker, wall clock of worker.drain()
// with the runs created beforehand. Sequential rows use a worker of concurrency 1 (one run, one step
// at a time: the cost of one step); the concurrent row (concurrent.ts) the same drain with many runs
// in flight. Counted, never estimated: statements and transactions at the driver, commits also at
// the Postgres server (pg_stat_database), store operations by a counting proxy.
import { captureSql, diff, snapshot, sqlLog } from "../support/counters";
import { cpuPerStep, cpuWindow } from "../support/cpu";
import { xactCommit, type PgHandle } from "../support/databases";
import { num } from "../support/env";
import { meanCounts, percentile, type Row } from "../support/report";
import type { Bench } from "../support/workload";

export type Provider = "sqlite" | "postgres";
export type Scenario = {
  name: string;
  agent: "pure" | "effectful";
  steps: number;
  perRun: number;
  /** Runs the worker drives at once (1: sequential). */
  concurrency: number;
  /** Create the runs with concurrent startRun calls instead of one after another. */
  startAtOnce?: boolean;
};

export const PER_RUN = num("BENCH_STEPS_PER_RUN", 20);
/** Pure steps driven before anything is measured. V8 keeps optimising the step's code for about the first thousand
 *  steps (a step's CPU roughly halves over them), so with a short warm-up the first row measured the JIT. */
export const WARMUP_STEPS = num("BENCH_WARMUP_STEPS", 2000);
/** Runs of this many steps, one after another. A run of them takes about a tenth of a second, so there are
 *  BENCH_LONG_RUNS of them: one alone moved by ±30 % between runs of the bench. (Taking turns every
 *  maxStepsPerClaim steps, a run's step window may hold another run's steps: its p99, not its cost, shows it.) */
export const LONG_RUN_STEPS = num("BENCH_LONG_STEPS", 200);
const LONG_RUNS = num("BENCH_LONG_RUNS", 5);
export const LONG_RUN_SCENARIO = `pure, ${LONG_RUN_STEPS}-step run`;
export const SEQUENTIAL: Scenario[] = [
  { name: "pure", agent: "pure", steps: num("BENCH_PURE_STEPS", 1000), perRun: PER_RUN, concurrency: 1 },
  { name: "effectful", agent: "effectful", steps: num("BENCH_EFFECT_STEPS", 500), perRun: PER_RUN, concurrency: 1 },
  // Same pure step, in one long run: its facts grow with it; a step must still write only what it added.
  { name: LONG_RUN_SCENARIO, agent: "pure", steps: LONG_RUN_STEPS * LONG_RUNS, perRun: LONG_RUN_STEPS, concurrency: 1 },
];
/** The synchronous=FULL comparison: half the steps, no long run (it only shows the fsync cost). */
export const FULL_SCENARIOS = SEQUENTIAL.slice(0, 2).map((s) => ({
  ...s,
  steps: Math.max(s.perRun, Math.round(s.steps / 2)),
}));

let tagSeq = 0;
export async function startRuns(
  bench: Bench,
  agent: "pure" | "effectful",
  runs: number,
  perRun: number,
  atOnce = false,
) {
  const start = async () =>
    (await bench.runtime.startRun({ agent: bench.agents[agent].slug, input: { tag: `t${tagSeq++}`, steps: perRun } }))
      .run.id;
  if (atOnce) return Promise.all(Array.from({ length: runs }, start));
  const ids: string[] = [];
  for (let i = 0; i < runs; i++) ids.push(await start());
  return ids;
}

export async function expectCompleted(bench: Bench, ids: string[], perRun: number) {
  for (const id of ids) {
    const run = await bench.runtime.getRun(id);
    if (run.status !== "COMPLETED" || run.state.step !== perRun)
      throw new Error(`run ${id} ended ${run.status} at step ${run.state.step}: ${run.error}`);
  }
}

/** JIT, Prisma's query compiler, the connection pool, SQLite's page cache. */
export async function warmUp(bench: Bench) {
  for (const agent of ["pure", "effectful"] as const) {
    await startRuns(bench, agent, agent === "pure" ? Math.max(3, Math.ceil(WARMUP_STEPS / PER_RUN)) : 3, PER_RUN);
    await bench.runtime.createWorker({ concurrency: 1 }).drain();
  }
  await startRuns(bench, "pure", 8, 5, true);
  await bench.runtime.createWorker().drain();
}

export async function measure(
  db: string,
  provider: Provider,
  bench: Bench,
  sc: Scenario,
  pg: PgHandle | null,
): Promise<Row> {
  const runs = Math.max(1, Math.round(sc.steps / sc.perRun));
  const steps = runs * sc.perRun;
  const ids = await startRuns(bench, sc.agent, runs, sc.perRun, sc.startAtOnce);
  // pg reports a backend's counters when it exits: disconnect so before/after are both complete.
  let x0 = 0;
  if (pg) {
    await bench.db.$disconnect();
    x0 = await xactCommit(pg);
    await bench.db.$connect();
  }
  bench.recorder.reset();
  const calls0 = { ...bench.storeCalls };
  const c0 = snapshot(provider);
  const endCpu = cpuWindow(pg?.name ?? null);
  const t0 = performance.now();
  await bench.runtime.createWorker({ concurrency: sc.concurrency }).drain();
  const wallMs = performance.now() - t0;
  const cpu = cpuPerStep(endCpu(), steps); // before the disconnect below: an exited backend's CPU is gone from /proc
  const all = diff(c0, snapshot(provider));
  const storeCallsPerStep = Object.fromEntries(
    Object.entries(bench.storeCalls)
      .map(([k, v]) => [k, (v - (calls0[k] ?? 0)) / steps])
      .filter(([, v]) => (v as number) > 0),
  );
  let xactCommitPerStep: number | null = null;
  if (pg) {
    await bench.db.$disconnect();
    xactCommitPerStep = ((await xactCommit(pg)) - x0) / steps;
  }
  await expectCompleted(bench, ids, sc.perRun);

  const samples = bench.recorder.samples;
  if (samples.length !== steps) throw new Error(`expected ${steps} step windows, recorded ${samples.length}`);
  const sorted = samples.map((s) => s.ms).sort((a, b) => a - b);
  // With several runs in flight, one run's step window also holds other runs' statements: only the
  // all-in figures (everything the drain sent / tool steps) are attributable then.
  const overlapping = sc.concurrency > 1 && runs > 1;
  // A pure step is carried to the commit of a later one (lib/runtime/cursor.ts commitRead): its window holds none
  // of its writes, which land in another step's window or in the run's last commit. Only the all-in figures say what it costs.
  const carried = sc.agent === "pure" && bench.runtime.context.carryReads !== false;
  const allInPerStep = meanCounts([all], steps);
  const inSteps = meanCounts(
    samples.map((s) => s.counts),
    1,
  ); // totals over the tool-step windows
  const overhead = diff(inSteps, all);
  return {
    db,
    scenario: sc.name,
    runs,
    steps,
    wallMs,
    stepsPerSec: steps / (wallMs / 1000),
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    perStep:
      overlapping || carried
        ? allInPerStep
        : meanCounts(
            samples.map((s) => s.counts),
            steps,
          ),
    allInPerStep,
    perRunOverhead: overlapping || carried ? meanCounts([], 0) : meanCounts([overhead], runs),
    xactCommitPerStep,
    storeCallsPerStep,
    overlapping,
    carried,
    cpu,
  };
}

/** BENCH_SQL=1: print the SQL of one short run (claim, 2 tool steps, complete), as sent to the driver. */
export async function showSql(db: string, bench: Bench, agent: "pure" | "effectful") {
  await startRuns(bench, agent, 1, 2);
  captureSql(true);
  await bench.runtime.createWorker({ concurrency: 1 }).drain();
  const lines = sqlLog ?? [];
  captureSql(false);
  console.log(`\n-- ${db} · ${agent}: one run of 2 tool steps, ${lines.length} statements`);
  for (const l of lines) console.log(`   ${l}`);
}
