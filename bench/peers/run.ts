// Tether beside its peers on ONE Postgres, in one run (bench/README.md):   npm run bench:peers
// Same workload everywhere (workload.ts): a workflow of 10 durable steps, each returning ~1 KB;
// sequential (one run after another) and concurrent (200 started at once, 3 such batches timed together).
// Each system gets a database of its own on the same server, dropped at the end, and a CHECKPOINT before
// each system's measurement; server settings are reported, never changed.
// Knobs (env): PEERS_SEQUENTIAL_RUNS, PEERS_CONCURRENT_RUNS, PEERS_CONCURRENT_BATCHES, PEERS_WARMUP_RUNS,
// PEERS_GATE_ROUNDS, PEERS_FLOOR_MS, PEERS_SYSTEM_TIMEOUT_S (a system's process is killed after it),
// PEERS_ROUNDS (default 3: each system measured once per round, the order reversed every other round),
// PEERS_ASYNC=0 (skip the LangGraph async row), PEERS_EACH_STEP=0 (skip the row of Tether with a commit each
// step), TETHER_BENCH_PG_URL.
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { DEFAULT_CARRY_READS } from "../../lib/runtime/context";
import { createPostgres } from "../support/databases";
import { load, machineContext } from "../support/report";
import { commitFloor } from "../support/commit-floor";
import { adminUrl, scratchDatabase, serverSettings, type Scratch } from "./databases";
import { buildReport, type Round, type SystemResult } from "./report";
import { PLAN, type PeerFigures } from "./workload";

const ROUNDS = Number(process.env.PEERS_ROUNDS ?? 3);
const version = (pkg: string) =>
  (
    JSON.parse(readFileSync(new URL(`./node_modules/${pkg}/package.json`, import.meta.url), "utf8")) as {
      version: string;
    }
  ).version;
const progress = (message: string) => process.stderr.write(`  ${new Date().toISOString().slice(11, 19)} ${message}\n`);

/** system.ts in a child process (its stderr passes through); resolves with the figures it printed. */
function runSystem(system: string, url: string): Promise<PeerFigures> {
  const entry = fileURLToPath(new URL("./system.ts", import.meta.url));
  const child = spawn(process.execPath, ["--import", "tsx", entry, system, url], {
    stdio: ["ignore", "pipe", "inherit"],
  });
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
      const how =
        signal === "SIGKILL"
          ? `gave no result within ${timeoutS} s (killed)`
          : signal
            ? `was killed by ${signal}`
            : `exited with ${code}`;
      reject(
        new Error(
          `${system} ${how}${out.trim() ? `; its output: ${out.trim().slice(-500)}` : code ? " (its error is above)" : ""}`,
        ),
      );
    });
  });
}

/**
 * Before each measurement, a CHECKPOINT: the dirty pages the previous system left are written now, not by the
 * checkpointer during the next system's timed window, where they slow its commits' fsyncs. Measured without
 * it, Tether's sequential row took 870 ms of wall time for 457 ms of CPU right after LangGraph and DBOS, and
 * 412 ms for 336 ms when it ran first. Needs a superuser or pg_checkpoint; without it the run goes on, and says so.
 */
let checkpointRefused: string | null = null;
async function settle(admin: pg.Client) {
  if (checkpointRefused) return;
  await admin.query("CHECKPOINT").catch((error) => {
    checkpointRefused = error instanceof Error ? error.message : String(error);
    progress(`CHECKPOINT refused (${checkpointRefused}): systems are measured without it`);
  });
}

/** Runs one system on its own database; a failure is reported in the table, not fatal. */
async function measure(
  admin: pg.Client,
  id: string,
  name: string,
  database: () => Promise<Scratch>,
  info = false,
): Promise<SystemResult> {
  progress(`${name}…`);
  let db: Scratch | null = null;
  try {
    db = await database();
    await settle(admin);
    const figures = await runSystem(id, db.url);
    return { id, name, figures, info };
  } catch (error) {
    progress(`${name} failed: ${error instanceof Error ? error.message : String(error)}`);
    return { id, name, figures: null, info, error: error instanceof Error ? error.message : String(error) };
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
        await settle(admin);
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
    // Rounds alternate the order (Tether first, then last, …): whoever runs while the machine is warmer
    // or busier changes each round. LangGraph's default (async) durability is information only: one round.
    const plan = [
      () => measure(admin, "tether", "Tether", tetherDb),
      () => measure(admin, "dbos", dbosName, peerDb("dbos")),
      () => measure(admin, "langgraph-sync", `${lgName} (sync)`, peerDb("lg_sync")),
    ];
    const rounds: Round[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      progress(`round ${r + 1} of ${ROUNDS}`);
      const round: Round = [];
      for (const system of r % 2 === 0 ? plan : [...plan].reverse()) round.push(await system());
      if (r === 0 && process.env.PEERS_ASYNC !== "0")
        round.push(await measure(admin, "langgraph-async", `${lgName} (async)*`, peerDb("lg_async"), true));
      if (r === 0 && process.env.PEERS_EACH_STEP !== "0")
        round.push(await measure(admin, "tether-each-step", "Tether, a commit each step*", tetherDb, true));
      rounds.push(round);
    }
    const systems = rounds.flat();
    progress("commit floor again…");
    floor.push(await floorOnce());

    const report = buildReport(rounds, { commitsPerSec: floor }, PLAN.concurrentRuns);
    const context = [
      ...machineContext(
        [
          `PostgreSQL ${server.version} on 127.0.0.1 (TCP), one server for every system: fsync=${server.fsync}, synchronous_commit=${server.synchronousCommit}, wal_sync_method=${server.walSyncMethod} — as configured, not changed`,
        ],
        loadAtStart,
      ),
      `nproc ${availableParallelism()}`,
    ];
    console.log("\nTether beside DBOS Transact and LangGraph.js — durable steps on one Postgres (bench/README.md)");
    for (const line of context) console.log(`  ${line}`);
    console.log(
      `  workload: 10 steps per workflow, each returning ~1 KB; sequential ${PLAN.sequentialRuns} runs one after another, concurrent ${PLAN.concurrentBatches} batches of ${PLAN.concurrentRuns} started at once, one batch after another; ${PLAN.warmupRuns} + ${PLAN.warmupRuns} warm-up runs each`,
    );
    console.log(
      `  ${ROUNDS} round(s), each system in a fresh process and database per round, ${checkpointRefused ? "without a CHECKPOINT before it (refused)" : "after a CHECKPOINT"}; order per round: ${rounds.map((r) => r.map((s) => s.id).join(" → ")).join("; ")}\n`,
    );
    console.log(report.text);
    console.log(
      [
        "",
        "Legend:",
        "  steps/s        = workflows × 10 / wall time, from starting the first workflow to the last one finished",
        "                   (each system's own start and completion writes included).",
        "  Tether         = bench-pure agent (bench/support/workload.ts), Prisma 6.19 + @prisma/adapter-pg (pool 10).",
        "                   Its steps are pure reads its scripted policy chose without a model: the engine carries",
        `                   such steps to the next commit (at most ${DEFAULT_CARRY_READS.maxSteps}, committed by the first step to end`,
        `                   ${DEFAULT_CARRY_READS.maxMs} ms after the first of them; lib/runtime/cursor.ts),`,
        "                   since a crash makes it redo them for free. The goals use it: it is what the engine does.",
        "                   (a commit each step)* = the same with carryReads: false, each step committed on its own",
        "                   as a DBOS step or a LangGraph (sync) node is: for information only, one round.",
        "                   sequential: startRun, then createWorker({ concurrency: 1 }).drain(), run after run;",
        "                   concurrent: 200 startRun at once, then createWorker({ concurrency: 200 }).drain(), a batch",
        "                   after another; the clock runs from the first batch's first start to the last's end.",
        "  DBOS           = DBOS.registerWorkflow (the @DBOS.workflow invoker) of 10 DBOS.runStep, called in-process;",
        "                   system database pool: its default (10). concurrent: 200 calls at once, Promise.all.",
        `  LangGraph      = StateGraph of 10 nodes in a line, checkpoint-postgres ${version("@langchain/langgraph-checkpoint-postgres")} PostgresSaver (pool 10),`,
        '                   one thread_id per run. (sync) = durability "sync": each checkpoint written before the',
        "                   next node runs, the durability Tether and DBOS give; the goals use it. (async)* = its",
        "                   default, each checkpoint written while the next node runs: for information only.",
        "  commit floor   = single-row ~1 KB INSERT autocommits from one pg client, ~" +
          (PLAN.floorMs / 1000).toFixed(1) +
          " s each, own database.",
        "  Tether ÷ it    = Tether's figure divided by the row's within one round (above 1: Tether is faster);",
        "                   median [min–max] over the rounds.",
        "  CPU per step   = over the same timed window as steps/s (start of the first workflow to the last done):",
        "                   Node = process.cpuUsage (user + system) of the system's own process, its driver and",
        "                   pool included; Postgres = utime + stime of the backends serving its database.",
        ...systems.flatMap((s) => s.figures?.notes ?? []).map((n) => `  note: ${n}`),
        ...systems.filter((s) => s.error).map((s) => `  FAILED ${s.name}: ${s.error}`),
      ].join("\n"),
    );
    console.log(`\nbench took ${((performance.now() - started) / 1000).toFixed(1)} s`);

    const summary = {
      at: new Date().toISOString(),
      node: process.version,
      nproc: availableParallelism(),
      server,
      context,
      plan: PLAN,
      ...report.json,
    };
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
