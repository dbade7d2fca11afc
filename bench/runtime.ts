// Cost of durability (DESIGN.md §10): sequential durable steps with ONE worker, on SQLite and Postgres.
//   npm run bench
// Knobs (env): BENCH_PURE_STEPS, BENCH_EFFECT_STEPS, BENCH_LONG_STEPS, BENCH_STEPS_PER_RUN,
// BENCH_PAYLOAD_BYTES (tool result size), BENCH_SQL=1 (print the SQL of one short run),
// BENCH_SQLITE_FULL=1 (add a synchronous=FULL SQLite comparison), TETHER_BENCH_PG_URL (admin database).
// Every number is counted, never estimated: statements and transactions at the database driver,
// commits also at the Postgres server (pg_stat_database), store operations by a counting proxy.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { captureSql, diff, installDriverCounters, snapshot, sqlLog } from "./support/counters";
import { createPostgres, createSqlite, postgresInfo, sqliteInfo, xactCommit, type PgHandle } from "./support/databases";
import { LEGEND, load, machineContext, meanCounts, percentile, printTables, type Row } from "./support/report";
import { buildBench, type Bench } from "./support/workload";

installDriverCounters();

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const PER_RUN = env("BENCH_STEPS_PER_RUN", 20);
type Scenario = { name: string; agent: "pure" | "effectful"; steps: number; perRun: number };
const SCENARIOS: Scenario[] = [
  { name: "pure", agent: "pure", steps: env("BENCH_PURE_STEPS", 1000), perRun: PER_RUN },
  { name: "effectful", agent: "effectful", steps: env("BENCH_EFFECT_STEPS", 500), perRun: PER_RUN },
  // Same pure step, in longer runs: the state (facts) grows with the run, and every step writes it.
  { name: "pure, 200-step run", agent: "pure", steps: env("BENCH_LONG_STEPS", 200), perRun: 200 },
];
// The synchronous=FULL comparison: half the steps, no long run (it only shows the fsync cost).
const FULL_SCENARIOS = SCENARIOS.slice(0, 2).map((s) => ({ ...s, steps: Math.max(s.perRun, Math.round(s.steps / 2)) }));
type Provider = "sqlite" | "postgres";

let tagSeq = 0;
async function startRuns(bench: Bench, agent: "pure" | "effectful", runs: number, perRun: number) {
  const ids: string[] = [];
  for (let i = 0; i < runs; i++) {
    const { run } = await bench.runtime.startRun({ agent: bench.agents[agent].slug, input: { tag: `t${tagSeq++}`, steps: perRun } });
    ids.push(run.id);
  }
  return ids;
}

async function expectCompleted(bench: Bench, ids: string[], perRun: number) {
  for (const id of ids) {
    const run = await bench.runtime.getRun(id);
    if (run.status !== "COMPLETED" || run.state.step !== perRun) throw new Error(`run ${id} ended ${run.status} at step ${run.state.step}: ${run.error}`);
  }
}

async function measure(db: string, provider: Provider, bench: Bench, sc: Scenario, pg: PgHandle | null): Promise<Row> {
  const runs = Math.max(1, Math.round(sc.steps / sc.perRun));
  const steps = runs * sc.perRun;
  const ids = await startRuns(bench, sc.agent, runs, sc.perRun);
  // pg reports a backend's counters when it exits: disconnect so before/after are both complete.
  let x0 = 0;
  if (pg) { await bench.db.$disconnect(); x0 = await xactCommit(pg); await bench.db.$connect(); }
  bench.recorder.reset();
  const calls0 = { ...bench.storeCalls };
  const c0 = snapshot(provider);
  const t0 = performance.now();
  await bench.runtime.createWorker().drain();
  const wallMs = performance.now() - t0;
  const all = diff(c0, snapshot(provider));
  const storeCallsPerStep = Object.fromEntries(Object.entries(bench.storeCalls).map(([k, v]) => [k, (v - (calls0[k] ?? 0)) / steps]).filter(([, v]) => (v as number) > 0));
  let xactCommitPerStep: number | null = null;
  if (pg) { await bench.db.$disconnect(); xactCommitPerStep = ((await xactCommit(pg)) - x0) / steps; }
  await expectCompleted(bench, ids, sc.perRun);

  const samples = bench.recorder.samples;
  if (samples.length !== steps) throw new Error(`expected ${steps} step windows, recorded ${samples.length}`);
  const sorted = samples.map((s) => s.ms).sort((a, b) => a - b);
  const inSteps = meanCounts(samples.map((s) => s.counts), 1); // totals over the tool-step windows
  const overhead = diff(inSteps, all);
  return {
    db, scenario: sc.name, runs, steps, wallMs, stepsPerSec: steps / (wallMs / 1000),
    p50Ms: percentile(sorted, 50), p99Ms: percentile(sorted, 99),
    perStep: meanCounts(samples.map((s) => s.counts), steps),
    allInPerStep: meanCounts([all], steps),
    perRunOverhead: meanCounts([overhead], runs),
    xactCommitPerStep, storeCallsPerStep,
  };
}

/** BENCH_SQL=1: print the SQL of one short run (claim, 2 tool steps, complete), as sent to the driver. */
async function showSql(db: string, bench: Bench, agent: "pure" | "effectful") {
  await startRuns(bench, agent, 1, 2);
  captureSql(true);
  await bench.runtime.createWorker().drain();
  const lines = sqlLog ?? [];
  captureSql(false);
  console.log(`\n-- ${db} · ${agent}: one run of 2 tool steps, ${lines.length} statements`);
  for (const l of lines) console.log(`   ${l}`);
}

async function benchDatabase(db: string, provider: Provider, url: string, pg: PgHandle | null, scenarios: Scenario[], setup?: Parameters<typeof buildBench>[2]) {
  const bench = await buildBench(url, provider, setup);
  try {
    // Warm-up: JIT, Prisma's query compiler, the connection pool, SQLite's page cache.
    for (const agent of ["pure", "effectful"] as const) {
      await startRuns(bench, agent, 3, PER_RUN);
      await bench.runtime.createWorker().drain();
    }
    if (process.env.BENCH_SQL === "1") for (const agent of ["pure", "effectful"] as const) await showSql(db, bench, agent);
    const rows: Row[] = [];
    for (const sc of scenarios) {
      rows.push(await measure(db, provider, bench, sc, pg));
      process.stderr.write(`  measured ${db} · ${sc.name}\n`);
    }
    return rows;
  } finally {
    await bench.db.$disconnect();
  }
}

async function main() {
  const started = performance.now();
  const loadAtStart = load();
  const rows: Row[] = [];
  const context: string[] = [];
  const sqlite = await createSqlite();
  let pg: PgHandle | string | null = null;
  try {
    const info = await (async () => { const b = await buildBench(sqlite.url, "sqlite"); try { return await sqliteInfo(b.db); } finally { await b.db.$disconnect(); } })();
    context.push(`${info.version} (better-sqlite3, WAL file under data/bench/): ${info.settings} — as lib/db.ts configures it`);
    rows.push(...(await benchDatabase("sqlite", "sqlite", sqlite.url, null, SCENARIOS)));
    if (process.env.BENCH_SQLITE_FULL === "1") {
      // lib/db.ts's comment promises "synchronous=FULL" but nothing sets it: shown for comparison only.
      rows.push(...(await benchDatabase("sqlite FULL", "sqlite", sqlite.url, null, FULL_SCENARIOS, async (d) => { await d.$queryRawUnsafe("PRAGMA synchronous=FULL"); })));
      context.push("sqlite FULL = the same file with PRAGMA synchronous=FULL on the bench connection (comparison, not production)");
    }

    pg = await createPostgres();
    if (typeof pg === "string") {
      console.log(`\n${pg}: Postgres not benchmarked (SQLite only).`);
      context.push(`Postgres: not measured (${pg})`);
    } else {
      const info = await postgresInfo(pg);
      context.push(`${info.version} on 127.0.0.1 (TCP, pg 8 via @prisma/adapter-pg): ${info.settings} — as configured, not changed`);
      rows.push(...(await benchDatabase("postgres", "postgres", pg.url, pg, SCENARIOS)));
    }
  } finally {
    sqlite.drop();
    if (pg && typeof pg !== "string") await pg.drop();
  }

  console.log("\nTether runtime benchmark — cost of durability (DESIGN.md §10)");
  for (const line of machineContext(context, loadAtStart)) console.log(`  ${line}`);
  console.log(`  workload: scripted agent, in-process tool returning ~${process.env.BENCH_PAYLOAD_BYTES ?? 1024} B; ${PER_RUN} tool steps per run unless stated; Prisma 6.19 (engineType=client, driver adapters)`);
  printTables(rows);
  console.log(`\n${LEGEND.join("\n")}`);
  console.log(`\nbench took ${((performance.now() - started) / 1000).toFixed(1)} s`);

  const round = (n: number | null, d = 2) => (n === null ? null : Number(n.toFixed(d)));
  const summary = {
    at: new Date().toISOString(), node: process.version, context, load: { start: loadAtStart, end: load() },
    results: rows.map((r) => ({
      db: r.db, scenario: r.scenario, steps: r.steps, stepsPerSec: round(r.stepsPerSec, 0), p50Ms: round(r.p50Ms), p99Ms: round(r.p99Ms),
      writeCommitsPerStep: round(r.perStep.writeCommits), transactionsPerStep: round(r.perStep.transactions), statementsPerStep: round(r.perStep.statements),
      kbSentPerStep: round(r.perStep.bytesOut / 1024, 1), allInWriteCommitsPerStep: round(r.allInPerStep.writeCommits), allInStatementsPerStep: round(r.allInPerStep.statements),
      xactCommitPerStep: round(r.xactCommitPerStep),
    })),
  };
  mkdirSync(path.resolve("bench/results"), { recursive: true });
  writeFileSync(path.resolve("bench/results/latest.json"), JSON.stringify(summary, null, 2) + "\n");
  console.log(`\nJSON ${JSON.stringify(summary)}`);
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
