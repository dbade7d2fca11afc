// Reads that stay fast as data grows: the console's run reads beside what they did before, on runs whose
// states are large (a long agent run's facts and tool results), in a throwaway database (SQLite, and
// Postgres when reachable).
//   npx tsx bench/run-reads.ts      (BENCH_RUNS=500 runs for the list, BENCH_STEPS=500 checkpoints for
//                                    the run page, BENCH_STATE_KB=50 per state, BENCH_REPEAT=7)
// - runs list page (50 rows): before, every row's state was read and parsed for its step; now the run
//   columns it shows, then the latest checkpoints' steps by key (lib/queries/run-list.ts).
// - run page checkpoints: before, every checkpoint with its state, each parsed; now the list as metadata
//   and the one state shown (lib/queries/run-checkpoints.ts).
// Each case is run BENCH_REPEAT times; the median and the worst are printed (first run included).
import { createHash } from "node:crypto";
import { createDb, type Db } from "../lib/db";
import { findCheckpoint, findCheckpointSummaries } from "../lib/queries/run-checkpoints";
import { findRunList, RUN_LIST_PAGE_SIZE } from "../lib/queries/run-list";
import { initialState, loadState } from "../lib/runtime/state";
import { onEachDatabase } from "./support/databases";

const RUNS = Number(process.env.BENCH_RUNS ?? 500);
const STEPS = Number(process.env.BENCH_STEPS ?? 500);
const STATE_KB = Number(process.env.BENCH_STATE_KB ?? 50);
const REPEAT = Number(process.env.BENCH_REPEAT ?? 7);
const AGENT = "bench-agent";

/** ~900 characters that do not compress away (Postgres TOAST would make repeated text nearly free to read). */
const noise = (seed: string) =>
  Array.from({ length: 14 }, (_, i) => createHash("sha256").update(`${seed}:${i}`).digest("hex"))
    .join("")
    .slice(0, 900);

/** A valid state of about STATE_KB kilobytes: facts of 1 KB, as observations from tools accumulate. */
function stateText(step: number): string {
  const base = initialState({
    agent: { slug: AGENT, version: "1", instructionsHash: "0".repeat(64) },
    instructions: "Refund the order if it qualifies.",
    input: null,
  });
  const facts = Array.from({ length: STATE_KB }, (_, i) => ({
    id: `fact_${step}_${i}`,
    key: `lookup.${i}`,
    value: { note: noise(`${step}.${i}`) },
    kind: "observation",
    at: new Date(0).toISOString(),
    step,
    expiresAt: null,
    source: { tool: "orders.get" },
  }));
  return JSON.stringify({ ...base, step, facts });
}

async function seed(db: Db) {
  const start = Date.parse("2031-01-01T00:00:00Z");
  for (let offset = 0; offset < RUNS; offset += 100) {
    const ids = Array.from({ length: Math.min(100, RUNS - offset) }, (_, j) => offset + j);
    const state = stateText(7);
    await db.run.createMany({
      data: ids.map((i) => ({
        id: `run_bench_${String(i).padStart(6, "0")}`,
        agentSlug: AGENT,
        agentVersion: "1",
        status: "COMPLETED",
        input: "{}",
        state,
        stateSeq: 1,
        createdAt: new Date(start + i * 1000),
        updatedAt: new Date(start + i * 1000),
      })),
    });
    await db.checkpoint.createMany({
      data: ids.map((i) => ({ runId: `run_bench_${String(i).padStart(6, "0")}`, seq: 1, step: 7, state })),
    });
  }
  const longRun = "run_bench_long";
  await db.run.create({
    data: {
      id: longRun,
      agentSlug: AGENT,
      agentVersion: "1",
      status: "RUNNING",
      input: "{}",
      state: stateText(STEPS - 1),
      stateSeq: STEPS,
      createdAt: new Date(start - 1000),
    },
  });
  for (let offset = 0; offset < STEPS; offset += 50) {
    const seqs = Array.from({ length: Math.min(50, STEPS - offset) }, (_, j) => offset + j + 1);
    await db.checkpoint.createMany({
      data: seqs.map((seq) => ({ runId: longRun, seq, step: seq - 1, state: stateText(seq - 1) })),
    });
  }
  return longRun;
}

/** The runs list as it was: every row's state read and parsed for its step. */
async function runListBefore(db: Db) {
  const rows = await db.run.findMany({
    where: { agentSlug: AGENT },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: RUN_LIST_PAGE_SIZE + 1,
    select: {
      id: true,
      agentSlug: true,
      agentVersion: true,
      status: true,
      state: true,
      error: true,
      parentRunId: true,
      createdAt: true,
      updatedAt: true,
    },
  });
  return rows.slice(0, RUN_LIST_PAGE_SIZE).map(({ state, ...row }) => ({ ...row, step: loadState(state).step }));
}

/** The run page's checkpoints as they were: all of them, each with its state parsed (the store's listCheckpoints). */
async function checkpointsBefore(db: Db, runId: string) {
  const rows = await db.checkpoint.findMany({ where: { runId }, orderBy: { seq: "asc" } });
  return rows.map((r) => ({ seq: r.seq, step: r.step, state: loadState(r.state), createdAt: r.createdAt }));
}

async function time(fn: () => Promise<unknown>) {
  const samples: number[] = [];
  for (let i = 0; i < REPEAT; i++) {
    const t0 = performance.now();
    await fn();
    samples.push(performance.now() - t0);
  }
  samples.sort((a, b) => a - b);
  return { median: samples[Math.floor(samples.length / 2)], worst: samples.at(-1)! };
}

async function measure(label: string, url: string) {
  const db = createDb(url);
  const t0 = performance.now();
  const longRun = await seed(db);
  console.log(
    `\n${label}: ${RUNS} runs + 1 run of ${STEPS} checkpoints, ~${STATE_KB} KB a state, seeded in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
  );
  const cases: Array<[string, () => Promise<unknown>]> = [
    ["runs list page: before (states parsed)", () => runListBefore(db)],
    ["runs list page: now (no state)", () => findRunList(db, { agent: AGENT })],
    [`run page checkpoints: before (${STEPS} states)`, () => checkpointsBefore(db, longRun)],
    ["run page checkpoints: now (metadata)", () => findCheckpointSummaries(db, longRun)],
    ["one checkpoint's state (shown / diff side)", () => findCheckpoint(db, longRun, Math.ceil(STEPS / 2))],
  ];
  console.log(`${"query".padEnd(46)} ${"median ms".padStart(10)} ${"worst ms".padStart(9)}`);
  for (const [name, fn] of cases) {
    const r = await time(fn);
    console.log(`${name.padEnd(46)} ${r.median.toFixed(1).padStart(10)} ${r.worst.toFixed(1).padStart(9)}`);
  }
  await db.$disconnect();
}

onEachDatabase(measure).catch((error) => {
  console.error(error);
  process.exit(1);
});
