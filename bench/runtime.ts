// Cost of durability (bench/README.md), on SQLite and Postgres: `npm run bench`.
// Scenarios (each in bench/scenarios/), all by default; BENCH_ONLY=name,name runs a subset:
//   sequential  durable steps one at a time with ONE worker: pure, effectful, a 200-step run   (throughput.ts)
//               + a 200-step run's per-step cost and bytes vs a 20-step run's                  (long-run.ts)
//   concurrent  pure, 200 concurrent runs: 200 runs × 10 steps started at once, one worker     (concurrent.ts)
//   io          one worker overlaps I/O: 20 runs whose tool waits 500 ms vs one such run       (io-overlap.ts)
//   gate        gate round trip: decision → the approved step committed, started worker        (gate-round-trip.ts)
//   latency     new-run latency: startRun → first step committed, started worker               (new-run-latency.ts)
//   opengate    open gate: requestGate → packet → decision → the long-polling client woken     (open-gate.ts)
//   scaling     1, 2, 4 worker processes on one Postgres database + the one-client commit floor (scaling.ts)
//   memory      a worker process with 1,000 parked runs and 64 active ones (Postgres)           (memory.ts)
//   limits      the request limits' cost: a rate-limit take, contended takes, the queued-runs cap check (limits.ts)
// Knobs (env): BENCH_DBS=sqlite,postgres; BENCH_WARMUP_STEPS; BENCH_PURE_STEPS, BENCH_EFFECT_STEPS, BENCH_LONG_STEPS, BENCH_LONG_RUNS,
// BENCH_STEPS_PER_RUN, BENCH_PAYLOAD_BYTES (tool result size), BENCH_CONCURRENT_RUNS, BENCH_CONCURRENT_STEPS,
// BENCH_CONCURRENCY, BENCH_IO_RUNS, BENCH_IO_STEPS, BENCH_IO_WAIT_MS, BENCH_GATE_ROUNDS, BENCH_LATENCY_RUNS,
// BENCH_IDLE_GAP_MS, BENCH_POLL_MS (started workers' fallback poll), BENCH_SCALING_PROCESSES,
// BENCH_SCALING_RUNS (per process), BENCH_SCALING_STEPS, BENCH_SCALING_CONCURRENCY, BENCH_FLOOR_MS,
// BENCH_MEMORY_PARKED, BENCH_MEMORY_ACTIVE, BENCH_MEMORY_CONCURRENCY, BENCH_LIMITS_CALLS; BENCH_SQL=1 (print the SQL of one
// short run), BENCH_SQLITE_FULL=1 (a second SQLite pass with synchronous=FULL set again on the bench
// connection), TETHER_BENCH_PG_URL (admin database). Every figure is measured in this run, never estimated.
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { installDriverCounters } from "./support/counters";
import { createPostgres, createSqlite, postgresInfo, sqliteInfo, type PgHandle } from "./support/databases";
import { list } from "./support/env";
import { printGoals, type Goal } from "./support/goals";
import { LEGEND, load, machineContext, printTables, type Row } from "./support/report";
import { collectingLogger, grantScenarioAgents, scenarioOptions } from "./support/scenario-agents";
import type { TimelineEntry } from "./support/timeline";
import { buildBench, type Bench } from "./support/workload";
import { measureConcurrent } from "./scenarios/concurrent";
import { gateGoals, gateRoundTrip, printGate, type GateResult } from "./scenarios/gate-round-trip";
import { ioGoals, ioOverlap, printIo, type IoResult } from "./scenarios/io-overlap";
import { limitsCost, printLimits, type LimitsResult } from "./scenarios/limits";
import { compareLongRun, longRunGoals, printLongRun } from "./scenarios/long-run";
import { memory, memoryGoals, printMemory, type MemoryResult } from "./scenarios/memory";
import { newRunGoals, newRunLatency, printNewRun, type NewRunResult } from "./scenarios/new-run-latency";
import { openGateRoundTrip, printOpenGate, type OpenGateResult } from "./scenarios/open-gate";
import { printScaling, scaling, scalingGoals, type ScalingResult } from "./scenarios/scaling";
import {
  FULL_SCENARIOS,
  PER_RUN,
  SEQUENTIAL,
  WARMUP_STEPS,
  measure,
  showSql,
  warmUp,
  type Provider,
  type Scenario,
} from "./scenarios/throughput";

installDriverCounters();

const ALL = ["sequential", "concurrent", "io", "gate", "latency", "opengate", "scaling", "memory", "limits"] as const;
/** The scenarios that run in this process on each database (the others start processes of their own). */
const IN_PROCESS: readonly Name[] = ["sequential", "concurrent", "io", "gate", "latency", "opengate", "limits"];
type Name = (typeof ALL)[number];
const only = list("BENCH_ONLY", [...ALL]);
const unknown = only.filter((n) => !(ALL as readonly string[]).includes(n));
if (unknown.length) throw new Error(`BENCH_ONLY: unknown scenario ${unknown.join(", ")} (known: ${ALL.join(", ")})`);
const selected = (name: Name) => only.includes(name);
const dbs = list("BENCH_DBS", ["sqlite", "postgres"]);

type Results = {
  rows: Row[];
  io: IoResult[];
  gate: GateResult[];
  newRun: NewRunResult[];
  openGate: OpenGateResult[];
  limits: LimitsResult[];
  scaling: ScalingResult | null;
  memory: MemoryResult | null;
  engineLog: string[];
};
const results: Results = {
  rows: [],
  io: [],
  gate: [],
  newRun: [],
  openGate: [],
  limits: [],
  scaling: null,
  memory: null,
  engineLog: [],
};
const t00 = performance.now();
const progress = (what: string) =>
  process.stderr.write(`  [${((performance.now() - t00) / 1000).toFixed(1)} s] measured ${what}\n`);

async function withBench<T>(
  url: string,
  provider: Provider,
  fn: (bench: Bench) => Promise<T>,
  setup?: Parameters<typeof buildBench>[2],
): Promise<T> {
  const { logger, lines } = collectingLogger();
  const bench = await buildBench(url, provider, setup, scenarioOptions(logger));
  try {
    await grantScenarioAgents(bench.runtime);
    return await fn(bench);
  } finally {
    results.engineLog.push(...lines.map((l) => `${provider}: ${l}`));
    await bench.db.$disconnect();
  }
}

/** Every in-process scenario selected, on one database. */
async function benchDatabase(
  db: string,
  provider: Provider,
  bench: Bench,
  pg: PgHandle | null,
  sequential: Scenario[],
) {
  await warmUp(bench);
  if (process.env.BENCH_SQL === "1")
    for (const agent of ["pure", "effectful"] as const) await showSql(db, bench, agent);
  if (selected("sequential")) {
    for (const sc of sequential) {
      results.rows.push(await measure(db, provider, bench, sc, pg));
      progress(`${db} · ${sc.name}`);
    }
  }
  if (selected("concurrent")) {
    results.rows.push(await measureConcurrent(db, provider, bench, pg));
    progress(`${db} · concurrent runs`);
  }
  if (selected("io")) {
    results.io.push(await ioOverlap(db, bench));
    progress(`${db} · I/O overlap`);
  }
  if (selected("gate")) {
    results.gate.push(await gateRoundTrip(db, bench));
    progress(`${db} · gate round trip`);
  }
  if (selected("latency")) {
    results.newRun.push(await newRunLatency(db, bench));
    progress(`${db} · new-run latency`);
  }
  if (selected("opengate")) {
    results.openGate.push(await openGateRoundTrip(db, bench));
    progress(`${db} · open gate round trip`);
  }
  if (selected("limits")) {
    results.limits.push(await limitsCost(db, bench));
    progress(`${db} · request limits`);
  }
}

/** Which engine was measured: the commit, and whether the engine's files differ from it. */
function treeContext(): string {
  try {
    const git = (...args: string[]) => execFileSync("git", args, { encoding: "utf8" }).trim();
    const dirty = git("status", "--porcelain", "--", "lib/runtime", "lib/store", "lib/db.ts")
      .split("\n")
      .filter(Boolean).length;
    return `engine measured: commit ${git("rev-parse", "--short", "HEAD")}${dirty ? ` + uncommitted changes in ${dirty} file(s) of lib/runtime, lib/store, lib/db.ts` : ", no uncommitted change in lib/runtime, lib/store, lib/db.ts"}`;
  } catch {
    return "engine measured: (git unavailable)";
  }
}

async function main() {
  const started = performance.now();
  const loadAtStart = load();
  const context: string[] = [treeContext()];
  const inProcess = IN_PROCESS.some(selected);

  if (dbs.includes("sqlite") && inProcess) {
    const sqlite = await createSqlite();
    try {
      await withBench(sqlite.url, "sqlite", async (bench) => {
        const info = await sqliteInfo(bench.db);
        context.push(
          `${info.version} (better-sqlite3, WAL file under data/bench/): ${info.settings} — as lib/db.ts configures it`,
        );
        await benchDatabase("sqlite", "sqlite", bench, null, SEQUENTIAL);
      });
      if (process.env.BENCH_SQLITE_FULL === "1" && selected("sequential")) {
        // lib/db.ts now sets synchronous=FULL on every connection: this pass sets it again, for comparison with older runs.
        const before = results.rows.length;
        await withBench(
          sqlite.url,
          "sqlite",
          async (bench) => {
            await warmUp(bench);
            for (const sc of FULL_SCENARIOS) results.rows.push(await measure("sqlite FULL", "sqlite", bench, sc, null));
          },
          async (d) => {
            await d.$queryRawUnsafe("PRAGMA synchronous=FULL");
          },
        );
        if (results.rows.length > before)
          context.push(
            "sqlite FULL = the same file with PRAGMA synchronous=FULL on the bench connection (comparison, not production)",
          );
      }
    } finally {
      sqlite.drop();
    }
  }

  if (dbs.includes("postgres")) {
    let pg: PgHandle | string | null = null;
    try {
      pg = await createPostgres();
      if (typeof pg === "string") {
        console.log(`\n${pg}: Postgres not benchmarked (SQLite only).`);
        context.push(`Postgres: not measured (${pg})`);
      } else {
        const handle = pg;
        progress("postgres · throwaway database created and migrated");
        const info = await postgresInfo(handle);
        context.push(
          `${info.version} on 127.0.0.1 (TCP, pg 8 via @prisma/adapter-pg): ${info.settings} — as configured, not changed`,
        );
        await withBench(handle.url, "postgres", async (bench) => {
          if (inProcess) await benchDatabase("postgres", "postgres", bench, handle, SEQUENTIAL);
          if (selected("scaling")) results.scaling = await scaling(handle, bench, progress);
          if (selected("memory")) {
            results.memory = await memory(handle, bench);
            progress("postgres · memory");
          }
        });
      }
    } finally {
      if (pg && typeof pg !== "string") await pg.drop();
    }
  }

  const { rows } = results;
  const longRun = compareLongRun(rows);
  const goals: Goal[] = [
    ...ioGoals(results.io),
    ...gateGoals(results.gate),
    ...newRunGoals(results.newRun),
    ...longRunGoals(longRun),
    ...scalingGoals(results.scaling),
    ...memoryGoals(results.memory),
  ];

  console.log("\nTether runtime benchmark — cost of durability (bench/README.md)");
  for (const line of machineContext(context, loadAtStart)) console.log(`  ${line}`);
  console.log(
    `  workload: scripted agent, in-process tool returning ~${process.env.BENCH_PAYLOAD_BYTES ?? 1024} B; ${PER_RUN} tool steps per run unless stated; ${WARMUP_STEPS} pure steps of warm-up; Prisma 6.19 (engineType=client, driver adapters)`,
  );
  console.log(`  scenarios: ${only.join(", ")}${only.length < ALL.length ? " (BENCH_ONLY)" : ""}`);
  if (rows.length) printTables(rows);
  printLongRun(longRun);
  printIo(results.io);
  printGate(results.gate);
  printNewRun(results.newRun);
  printOpenGate(results.openGate);
  printLimits(results.limits);
  printScaling(results.scaling);
  printMemory(results.memory);
  printGoals(goals);
  if (results.engineLog.length) {
    console.log(`\nThe engine logged ${results.engineLog.length} warnings/errors in this process (first 10):`);
    for (const l of results.engineLog.slice(0, 10)) console.log(`  ${l}`);
  }
  console.log(`\n${LEGEND.join("\n")}`);
  console.log(`\nbench took ${((performance.now() - started) / 1000).toFixed(1)} s`);

  const round = (n: number | null, d = 2) => (n === null || !Number.isFinite(n) ? null : Number(n.toFixed(d)));
  const timelineJson = (t: TimelineEntry[]) =>
    t.map((e) => ({ call: e.key, rounds: e.rounds, startP50Ms: round(e.startP50), p50Ms: round(e.msP50) }));
  const summary = {
    at: new Date().toISOString(),
    node: process.version,
    context,
    load: { start: loadAtStart, end: load() },
    scenarios: only,
    results: rows.map((r) => ({
      db: r.db,
      scenario: r.scenario,
      steps: r.steps,
      stepsPerSec: round(r.stepsPerSec, 0),
      p50Ms: round(r.p50Ms),
      p99Ms: round(r.p99Ms),
      writeCommitsPerStep: round(r.perStep.writeCommits),
      transactionsPerStep: round(r.perStep.transactions),
      statementsPerStep: round(r.perStep.statements),
      kbSentPerStep: round(r.perStep.bytesOut / 1024, 1),
      allInWriteCommitsPerStep: round(r.allInPerStep.writeCommits),
      allInStatementsPerStep: round(r.allInPerStep.statements),
      xactCommitPerStep: round(r.xactCommitPerStep),
      nodeCpuMsPerStep: round(r.cpu.nodeMs, 3),
      backendCpuMsPerStep: round(r.cpu.backendMs, 3),
      ...(r.overlapping ? { concurrent: true } : {}),
    })),
    longRun: longRun.map((c) => ({
      db: c.db,
      msPerStepRatio: round(c.msRatio),
      p50Ratio: round(c.p50Ratio),
      bytesPerStepRatio: round(c.bytesRatio),
      kbPerStepShort: round(c.short.perStep.bytesOut / 1024, 1),
      kbPerStepLong: round(c.long.perStep.bytesOut / 1024, 1),
    })),
    ioOverlap: results.io.map((r) => ({
      db: r.db,
      runs: r.runs,
      steps: r.steps,
      waitMs: r.waitMs,
      oneRunMs: round(r.oneMs, 0),
      allRunsMs: round(r.manyMs, 0),
      ratio: round(r.ratio),
      peakInFlight: r.peakInFlight,
    })),
    gateRoundTrip: results.gate.map((r) => ({
      db: r.db,
      rounds: r.rounds,
      p50Ms: round(r.roundTrip.p50),
      p95Ms: round(r.roundTrip.p95),
      maxMs: round(r.roundTrip.max),
      decideP50Ms: round(r.decide.p50),
      fromCallP50Ms: round(r.fromCall.p50),
      missed: r.missed,
      claimsPerRound: round(r.claimsPerRound),
      storeCalls: timelineJson(r.timeline),
    })),
    openGateRoundTrip: results.openGate.map((r) => ({
      db: r.db,
      rounds: r.rounds,
      p50Ms: round(r.woken.p50),
      p95Ms: round(r.woken.p95),
      maxMs: round(r.woken.max),
      fromCallP50Ms: round(r.fromCall.p50),
      openedP50Ms: round(r.opened.p50),
      missed: r.missed,
    })),
    newRunLatency: results.newRun.map((r) => ({
      db: r.db,
      runs: r.runs,
      p50Ms: round(r.firstStep.p50),
      p95Ms: round(r.firstStep.p95),
      maxMs: round(r.firstStep.max),
      pickupP50Ms: round(r.pickup.p50),
      startRunP50Ms: round(r.create.p50),
      fromCallP50Ms: round(r.fromCall.p50),
      missed: r.missed,
      claimsPerRun: round(r.claimsPerRun),
      storeCalls: timelineJson(r.timeline),
    })),
    limits: results.limits.map((r) => ({
      db: r.db,
      calls: r.calls,
      takeP50Ms: round(r.take.p50, 3),
      takeP95Ms: round(r.take.p95, 3),
      contendedP50Ms: round(r.contended.p50, 3),
      contendedP95Ms: round(r.contended.p95, 3),
      queueCheckP50Ms: round(r.queueCheck.p50, 3),
      queueCheckP95Ms: round(r.queueCheck.p95, 3),
    })),
    scaling: results.scaling && {
      commitFloorPerSec: round(results.scaling.floor.perSec, 0),
      concurrency: results.scaling.concurrency,
      points: results.scaling.points.map((p) => ({
        processes: p.processes,
        runs: p.runs,
        steps: p.steps,
        wallMs: round(p.wallMs, 0),
        stepsPerSec: round(p.stepsPerSec, 0),
        commitsPerSec: round(p.commitsPerSec, 0),
        statementsPerStep: round(p.statementsPerStep),
        workerCores: round(p.workerCores),
        backendCores: round(p.backendCores),
        machineCores: round(p.machineCores),
        engineLogLines: p.engineLogLines,
      })),
    },
    memory: results.memory && {
      parked: results.memory.parked,
      active: results.memory.active,
      rssMB: round(results.memory.loaded.rss / 2 ** 20, 0),
      heapUsedMB: round(results.memory.loaded.heapUsed / 2 ** 20, 0),
      rssAfterGcMB: round(results.memory.loadedAfterGc.rss / 2 ** 20, 0),
      heapUsedAfterGcMB: round(results.memory.loadedAfterGc.heapUsed / 2 ** 20, 0),
      baselineRssMB: round(results.memory.baseline.rss / 2 ** 20, 0),
      inFlight: results.memory.loaded.inFlight,
    },
    goals: goals.map((g) => ({ id: g.id, db: g.db, ok: g.ok, target: g.target, figure: g.figure })),
    engineLogLines: results.engineLog.length,
  };
  mkdirSync(path.resolve("bench/results"), { recursive: true });
  writeFileSync(path.resolve("bench/results/latest.json"), JSON.stringify(summary, null, 2) + "\n");
  console.log(`\nJSON ${JSON.stringify(summary)}`);
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
