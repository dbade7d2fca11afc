// The workload every system runs (bench/README.md): a workflow of STEPS durable steps, each a trivial
// function returning a ~1 KB object, so what is measured is the engine's cost of making a step durable.
import { cpuWindow, databaseOf } from "../support/cpu";
import { orderPayload } from "../support/payload";

export const STEPS = 10;

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
export const PLAN = {
  // JIT, connection pools, query plans: not measured. 1,000 steps, as npm run bench warms up with 2,000: V8
  // optimises a step's code over its first thousand or so (Tether's Node CPU per step was 0.59 ms after 20 + 20
  // warm-up runs here, 0.36 ms in npm run bench).
  warmupRuns: env("PEERS_WARMUP_RUNS", 100),
  // One after another; at 100 runs the fastest system's window is still under a second.
  sequentialRuns: env("PEERS_SEQUENTIAL_RUNS", 100),
  concurrentRuns: env("PEERS_CONCURRENT_RUNS", 200), // started at once
  // Batches of concurrentRuns, one after another, timed together. One batch of Tether's is half a second: a
  // single stall of the disk's fsync (another system's WAL being checkpointed) could halve its figure.
  concurrentBatches: env("PEERS_CONCURRENT_BATCHES", 3),
  gateRounds: env("PEERS_GATE_ROUNDS", 20), // pause → decision → next step committed
  floorMs: env("PEERS_FLOOR_MS", 2500), // single-row autocommit INSERT loop
};
export type Plan = typeof PLAN;

/** ~1 KB, the result Tether's bench tools return too (bench/support/workload.ts). */
export const payload = (i: number) => orderPayload(i);

/** Wall time of one scenario, and the CPU it took: this process (the system's Node side) and the
 *  Postgres backends serving the system's database (null where /proc cannot be read). */
export type Timed = { runs: number; steps: number; ms: number; nodeCpuMs: number; backendCpuMs: number | null };

/** The database whose backends count as the system's (system.ts sets it from the URL it is given). */
let cpuDatabase: string | null = null;
export const countBackendsOf = (url: string) => void (cpuDatabase = databaseOf(url));
export const stepsPerSec = (t: Timed | null | undefined) => (t ? t.steps / (t.ms / 1000) : NaN);

export type PeerFigures = {
  sequential: Timed;
  concurrent: Timed;
  /** Gate / interrupt round trips (ms), one per round, when the system has one. */
  gateMs?: number[];
  notes: string[];
};

export async function timed(runs: number, body: () => Promise<void>): Promise<Timed> {
  const endCpu = cpuWindow(cpuDatabase);
  const t0 = performance.now();
  await body();
  const ms = performance.now() - t0;
  const cpu = endCpu();
  return { runs, steps: runs * STEPS, ms, nodeCpuMs: cpu.nodeMs, backendCpuMs: cpu.backendMs };
}

/**
 * The same measurement for every peer: warm up (one at a time, then all at once), then time
 * plan.sequentialRuns workflows one after another, and plan.concurrentBatches batches of plan.concurrentRuns
 * started together, one batch after another.
 */
export async function sequentialAndConcurrent(
  plan: Plan,
  one: () => Promise<unknown>,
): Promise<{ sequential: Timed; concurrent: Timed }> {
  const many = async (n: number) => {
    await Promise.all(Array.from({ length: n }, one));
  };
  for (let r = 0; r < plan.warmupRuns; r++) await one();
  await many(plan.warmupRuns);
  const sequential = await timed(plan.sequentialRuns, async () => {
    for (let r = 0; r < plan.sequentialRuns; r++) await one();
  });
  const concurrent = await timed(plan.concurrentRuns * plan.concurrentBatches, async () => {
    for (let b = 0; b < plan.concurrentBatches; b++) await many(plan.concurrentRuns);
  });
  return { sequential, concurrent };
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}
