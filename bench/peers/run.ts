// Tether beside its peers on ONE Postgres, in one run (bench/README.md):   npm run bench:peers
// Same workload everywhere (workload.ts): a workflow of 10 durable steps, each returning ~1 KB;
// sequential (one run after another) and concurrent (200 started at once). Each system gets a database
// of its own on the same server, dropped at the end; server settings are reported, never changed.
// Knobs (env): PEERS_SEQUENTIAL_RUNS, PEERS_CONCURRENT_RUNS, PEERS_WARMUP_RUNS, PEERS_GATE_ROUNDS,
// PEERS_FLOOR_MS, PEERS_SYSTEM_TIMEOUT_S (a system's process is killed after it), TETHER_BENCH_PG_URL.
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { createPostgres } from "../support/databases";
import { load, machineContext } from "../support/report";
import { commitFloor } from "../support/commit-floor";
import { adminUrl, scratchDatabase, serverSettings, type Scratch } from "./databases";
import { buildReport, type SystemResult } from "./report";
import { PLAN, type PeerFigures } from "./workload";

const version = (pkg: string) => (JSON.parse(readFileSync(new URL(`./node_modules/${pkg}/package.json`, import.meta.url), "utf8")) as { version: string }).version;
const progress = (message: string) => process.stderr.write(`  ${new Date().toISOString().slice(11, 19)} ${message}\n`);

/** system.ts in a child process (its stderr passes through); resolves with the figures it printed. */
function runSystem(system: string, url: string): Promise<PeerFigures> {
  const entry = fileURLToPath(new URL("./system.ts", import.meta.url));
  const child = spawn(process.execPath, ["--import", "tsx", entry, system, url], { stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  child.stdout.on("data", (chunk) => (out += chunk));
  // A system that hangs (it happened: Prisma transactions left idle after BEGIN) must not hold the run.
  const timeoutS = Number(process.env.PEERS_SYSTEM_TIMEOUT_S ?? 600);
  const timer = setTimeout(() => child.kill("SIGKILL"), timeoutS * 1000);
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      const line = out.split("\n").find((l) => l.startsWith("PEER_RESULT "));
      if (code === 0 && line) return resolve(JSON.parse(line.slice("PEER_RESULT ".length)) as PeerFigures);
      const how = signal === "SIGKILL" ? `gave no result within ${timeoutS} s (killed)` : signal ? `was killed by ${signal}` : `exited with ${code}`;
      reject(new Error(`${system} ${how}${out.trim() ? `; its output: ${out.trim().slice(-500)}` : code ? " (its error is above)" : ""}`));
    });
  });
}

/** Runs one system on its own database; a failure is reported in the table, not fatal. */
async function measure(name: string, database: () => Promise<Scratch>, system: string, info = false): Promise<SystemResult> {
  progress(`${name}…`);
  let db: Scratch | null = null;
  try {
    db = await database();
    const figures = await runSystem(system, db.url);
    return { name, figures, info };
  } catch (error) {
    progress(`${name} failed: ${error instanceof Error ? error.message : String(error)}`);
    return { name, figures: null, info, error: error instanceof Error ? error.message : String(error) };
  } finally {
    await db?.drop().catch((error) => progress(`could not drop ${db?.name}: ${String(error)}`));
  }
}

async function main() {
  const started = performance.now();
  const loadAtStart = load();
  const admin = new pg.Client({ connectionString: adminUrl(), connectionTimeoutMillis: 3000 });
  await admin.connect();
  try {
    const server = await serverSettings(admin);
    const floorOnce = async () => {
      const db = await scratchDatabase(admin, "floor");
      try {
        const { commits, ms } = await commitFloor(db.url, PLAN.floorMs);
        return commits / (ms / 1000);
      } finally {
        await db.drop();
      }
    };
    progress("commit floor…");
    const floor = [await floorOnce()];

    const tetherDb = async (): Promise<Scratch> => {
      const h = await createPostgres(); // migrated with the committed Prisma migrations
      if (typeof h === "string") throw new Error(h);
      return { name: h.name, url: h.url, drop: h.drop };
    };
    const peerDb = (label: string) => () => scratchDatabase(admin, label);
    const dbosName = `DBOS Transact ${version("@dbos-inc/dbos-sdk")}`;
    const lgName = `LangGraph.js ${version("@langchain/langgraph")}`;
    const systems = [
      await measure("Tether", tetherDb, "tether"),
      await measure(dbosName, peerDb("dbos"), "dbos"),
      await measure(`${lgName} (sync)`, peerDb("lg_sync"), "langgraph-sync"),
      await measure(`${lgName} (async)*`, peerDb("lg_async"), "langgraph-async", true),
    ];
    progress("commit floor again…");
    floor.push(await floorOnce());

    const report = buildReport(systems, { commitsPerSec: floor }, PLAN.concurrentRuns);
    const context = [
      ...machineContext([
        `PostgreSQL ${server.version} on 127.0.0.1 (TCP), one server for every system: fsync=${server.fsync}, synchronous_commit=${server.synchronousCommit}, wal_sync_method=${server.walSyncMethod} — as configured, not changed`,
      ], loadAtStart),
      `nproc ${availableParallelism()}`,
    ];
    console.log("\nTether beside DBOS Transact and LangGraph.js — durable steps on one Postgres (bench/README.md)");
    for (const line of context) console.log(`  ${line}`);
    console.log(`  workload: 10 steps per workflow, each returning ~1 KB; sequential ${PLAN.sequentialRuns} runs one after another, concurrent ${PLAN.concurrentRuns} started at once; ${PLAN.warmupRuns} + ${PLAN.warmupRuns} warm-up runs each\n`);
    console.log(report.text);
    console.log([
      "",
      "Legend:",
      "  steps/s        = workflows × 10 / wall time, from starting the first workflow to the last one finished",
      "                   (each system's own start and completion writes included).",
      "  Tether         = bench-pure agent (bench/support/workload.ts), Prisma 6.19 + @prisma/adapter-pg (pool 10).",
      "                   sequential: startRun, then createWorker({ concurrency: 1 }).drain(), run after run;",
      "                   concurrent: 200 startRun at once, then",
      "                   createWorker({ concurrency: 200 }).drain(); the clock runs from the first start.",
      "  DBOS           = DBOS.registerWorkflow (the @DBOS.workflow invoker) of 10 DBOS.runStep, called in-process;",
      "                   system database pool: its default (10). concurrent: 200 calls at once, Promise.all.",
      `  LangGraph      = StateGraph of 10 nodes in a line, checkpoint-postgres ${version("@langchain/langgraph-checkpoint-postgres")} PostgresSaver (pool 10),`,
      "                   one thread_id per run. (sync) = durability \"sync\": each checkpoint written before the",
      "                   next node runs, the durability Tether and DBOS give; the goals use it. (async)* = its",
      "                   default, each checkpoint written while the next node runs: for information only.",
      "  commit floor   = single-row ~1 KB INSERT autocommits from one pg client, ~" + (PLAN.floorMs / 1000).toFixed(1) + " s each, own database.",
      "  Tether ÷ it    = Tether's figure divided by the row's (above 1: Tether is faster).",
      ...systems.flatMap((s) => s.figures?.notes ?? []).map((n) => `  note: ${n}`),
      ...systems.filter((s) => s.error).map((s) => `  FAILED ${s.name}: ${s.error}`),
    ].join("\n"));
    console.log(`\nbench took ${((performance.now() - started) / 1000).toFixed(1)} s`);

    const summary = { at: new Date().toISOString(), node: process.version, nproc: availableParallelism(), server, context, plan: PLAN, ...report.json };
    const out = path.resolve("bench/results/peers-latest.json");
    mkdirSync(path.dirname(out), { recursive: true });
    writeFileSync(out, JSON.stringify(summary, null, 2) + "\n");
    console.log(`JSON summary: ${path.relative(process.cwd(), out)}`);
    if (systems.some((s) => s.error)) process.exitCode = 1;
  } finally {
    await admin.end();
  }
}

main().then(
  () => process.exit(process.exitCode ?? 0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
