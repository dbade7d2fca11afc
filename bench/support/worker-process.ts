// A worker process for the multi-process scenarios (bench/scenarios/scaling.ts, memory.ts), started
// by bench/support/spawn.ts as `node --import tsx --expose-gc bench/support/worker-process.ts`.
// It builds the bench runtime (the same agents and tools as the parent, no grants of its own) on
// DATABASE_URL (Postgres) and obeys one command a line on stdin:
//   WARM        create and drain a few runs of its own (JIT, Prisma's query compiler, the pool) → WARMED
//   GO          worker.start(): the long-lived loop, woken by LISTEN/NOTIFY          → STARTED
//   MEM [gc]    report process.memoryUsage() (after a forced GC with "gc")           → MEM {json}
//   STOP        stop the worker (no grace), report its counts, exit                  → STATS {json}
// and reports progress as `PROGRESS <completed> <parked> <toolCallsWaiting>` lines (runs it completed
// and parked, as its commits resolved; bench.slow calls waiting now). Env: BENCH_WORKER_CONCURRENCY,
// BENCH_WORKER_POLL_MS, BENCH_WORKER_LEASE_MS.
import { createInterface } from "node:readline";
import { installDriverCounters, snapshot } from "./counters";
import { collectingLogger, scenarioOptions, slowCalls } from "./scenario-agents";
import { buildBench } from "./workload";

async function main() {
  installDriverCounters();
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error("DATABASE_URL is required");
  const { logger, lines: logLines } = collectingLogger();
  const bench = await buildBench(url, "postgres", undefined, { ...scenarioOptions(logger), grant: false });
  const concurrency = Number(process.env.BENCH_WORKER_CONCURRENCY ?? 64);
  const worker = bench.runtime.createWorker({
    concurrency,
    pollMs: Number(process.env.BENCH_WORKER_POLL_MS ?? 1000),
    leaseMs: Number(process.env.BENCH_WORKER_LEASE_MS ?? 30_000),
  });

  const out = (line: string) => process.stdout.write(`${line}\n`);
  const progress = { completed: 0, parked: 0, active: 0 };
  let flushQueued = false;
  function flush() {
    if (flushQueued) return;
    flushQueued = true;
    setImmediate(() => {
      flushQueued = false;
      out(`PROGRESS ${progress.completed} ${progress.parked} ${progress.active}`);
    });
  }
  let counting = false;
  bench.onCommit((commit) => {
    if (!counting) return;
    if (commit.status === "COMPLETED") progress.completed++;
    else if (commit.status === "WAITING_APPROVAL" || commit.status === "SLEEPING" || commit.status === "WAITING_EVENT")
      progress.parked++;
    else return;
    flush();
  });
  setInterval(() => {
    if (slowCalls.active !== progress.active) {
      progress.active = slowCalls.active;
      flush();
    }
  }, 25).unref();

  let cpu0 = process.cpuUsage();
  let counts0 = snapshot("postgres");
  let t0 = performance.now();
  let warmSeq = 0;

  async function handle(command: string) {
    const [name, arg] = command.trim().split(/\s+/);
    switch (name) {
      case "WARM": {
        const ids: string[] = [];
        for (let i = 0; i < 6; i++) {
          ids.push(
            (
              await bench.runtime.startRun({
                agent: bench.agents.pure.slug,
                input: { tag: `warm-${process.pid}-${warmSeq++}`, steps: 5 },
              })
            ).run.id,
          );
        }
        await bench.runtime.createWorker({ concurrency: 3 }).drain();
        return out("WARMED");
      }
      case "GO":
        counting = true;
        cpu0 = process.cpuUsage();
        counts0 = snapshot("postgres");
        t0 = performance.now();
        worker.start();
        return out("STARTED");
      case "MEM": {
        if (arg === "gc") (globalThis as { gc?: () => void }).gc?.();
        const m = process.memoryUsage();
        return out(
          `MEM ${JSON.stringify({ rss: m.rss, heapUsed: m.heapUsed, heapTotal: m.heapTotal, external: m.external, arrayBuffers: m.arrayBuffers, inFlight: worker.inFlight, toolCallsWaiting: slowCalls.active })}`,
        );
      }
      case "STOP": {
        const cpu = process.cpuUsage(cpu0);
        const ms = performance.now() - t0;
        const counts = snapshot("postgres");
        const writeCommits = counts.writeCommits - counts0.writeCommits;
        const statements = counts.statements - counts0.statements;
        const transactions = counts.transactions - counts0.transactions;
        await worker.stop({ graceMs: 0 });
        out(
          `STATS ${JSON.stringify({ pid: process.pid, owner: worker.owner, ms, cpuMs: (cpu.user + cpu.system) / 1000, writeCommits, transactions, statements, ...progress, log: logLines.slice(0, 20), logLines: logLines.length })}`,
        );
        process.exit(0);
      }
    }
  }

  let chain = Promise.resolve();
  createInterface({ input: process.stdin }).on("line", (line) => {
    chain = chain
      .then(async () => void (await handle(line)))
      .catch((error) => {
        out(`ERROR ${error instanceof Error ? error.stack?.replace(/\n/g, " | ") : String(error)}`);
      });
  });
  process.stdin.on("end", () => process.exit(0)); // the parent went away
  out(`READY ${worker.owner}`);
}

main().catch((error) => {
  process.stdout.write(`ERROR ${error instanceof Error ? error.stack?.replace(/\n/g, " | ") : String(error)}\n`);
  process.exit(1);
});
