// Memory of a worker process with many runs parked and many active (Postgres; a real process, so
// its RSS is its own): one worker process (worker.start(), concurrency BENCH_MEMORY_CONCURRENCY = 64)
// drives BENCH_MEMORY_PARKED runs until they park — half on an approval (bench-gate), half on a long
// timer (bench-sleep, 1 h) — then BENCH_MEMORY_ACTIVE runs whose tool (bench.slow) waits 10 minutes,
// so they stay in flight. process.memoryUsage() is read as the worker is (no forced GC: what the
// process holds), then once more after a forced GC. Goal: RSS under 300 MB.
import type { PgHandle } from "../support/databases";
import { num } from "../support/env";
import type { Goal } from "../support/goals";
import { fmt, printTable } from "../support/report";
import { gateAgent, sleepAgent, slowAgent } from "../support/scenario-agents";
import { spawnWorkerProcess } from "../support/spawn";
import type { Bench } from "../support/workload";

type Mem = {
  rss: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
  arrayBuffers: number;
  inFlight: number;
  toolCallsWaiting: number;
};
export type MemoryResult = {
  parked: number;
  active: number;
  baseline: Mem;
  afterParking: Mem;
  loaded: Mem;
  loadedAfterGc: Mem;
  parkMs: number;
};

let tagSeq = 0;
const mb = (bytes: number) => bytes / 2 ** 20;

async function startMany(
  bench: Bench,
  n: number,
  make: (i: number) => { agent: string; input: Record<string, unknown> },
) {
  for (let i = 0; i < n; i += 10) {
    await Promise.all(Array.from({ length: Math.min(10, n - i) }, (_, k) => bench.runtime.startRun(make(i + k))));
  }
}

export async function memory(pg: PgHandle, bench: Bench): Promise<MemoryResult> {
  const parked = num("BENCH_MEMORY_PARKED", 1000);
  const active = num("BENCH_MEMORY_ACTIVE", 64);
  const child = spawnWorkerProcess({
    DATABASE_URL: pg.url,
    BENCH_WORKER_CONCURRENCY: String(num("BENCH_MEMORY_CONCURRENCY", 64)),
    BENCH_WORKER_POLL_MS: "1000",
  });
  const mem = async (gc = false): Promise<Mem> => {
    child.send(gc ? "MEM gc" : "MEM");
    return JSON.parse((await child.next("MEM ")).slice("MEM ".length));
  };
  let progress = { completed: 0, parked: 0, active: 0 };
  const waitFor = async (what: string, ok: () => boolean, timeoutMs = 300_000) => {
    const t0 = Date.now();
    while (!ok()) {
      if (Date.now() - t0 > timeoutMs)
        throw new Error(`memory: ${what} not reached within ${timeoutMs} ms (${JSON.stringify(progress)})`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  child.onProgress((p) => (progress = p));
  try {
    await child.next("READY", 120_000);
    child.send("WARM");
    await child.next("WARMED", 120_000);
    const baseline = await mem(true);
    child.send("GO");
    await child.next("STARTED");
    const t0 = performance.now();
    await startMany(bench, parked, (i) =>
      i % 2 === 0
        ? { agent: gateAgent.slug, input: { tag: `mem${tagSeq++}`, steps: 1 } }
        : { agent: sleepAgent.slug, input: { tag: `mem${tagSeq++}`, steps: 1, sleepMs: 3_600_000 } },
    );
    await waitFor(`${parked} runs parked`, () => progress.parked >= parked);
    const parkMs = performance.now() - t0;
    const afterParking = await mem();
    await startMany(bench, active, () => ({
      agent: slowAgent.slug,
      input: { tag: `mem${tagSeq++}`, steps: 1, ms: 600_000 },
    }));
    await waitFor(`${active} tool calls in flight`, () => progress.active >= active);
    const loaded = await mem();
    const loadedAfterGc = await mem(true);
    child.send("STOP");
    await child.next("STATS", 60_000).catch(() => "");
    return { parked, active, baseline, afterParking, loaded, loadedAfterGc, parkMs };
  } finally {
    await child.kill();
  }
}

export function printMemory(r: MemoryResult | null) {
  if (!r) return;
  console.log(
    `\nMemory of one worker process (Postgres; ${r.parked} runs parked by it — half on approvals, half on 1 h timers — in ${fmt(r.parkMs / 1000)} s, then ${r.active} runs in flight on a tool that waits)`,
  );
  const row = (label: string, m: Mem) => [
    label,
    fmt(mb(m.rss), 0),
    fmt(mb(m.heapUsed), 0),
    fmt(mb(m.heapTotal), 0),
    fmt(mb(m.external + m.arrayBuffers), 0),
    `${m.inFlight}`,
    `${m.toolCallsWaiting}`,
  ];
  printTable(
    ["moment", "RSS MB", "heapUsed MB", "heapTotal MB", "external MB", "runs held", "tool calls waiting"],
    [
      row("warmed up, idle (after GC)", r.baseline),
      row(`${r.parked} parked`, r.afterParking),
      row(`${r.parked} parked + ${r.active} active`, r.loaded),
      row("  the same, after a forced GC", r.loadedAfterGc),
    ],
  );
}

export const memoryGoals = (r: MemoryResult | null): Goal[] =>
  r
    ? [
        {
          id: "memory",
          db: "postgres",
          ok: mb(r.loaded.rss) < 300 && r.loaded.inFlight >= r.active,
          target: `a worker holding ${r.parked} parked runs and ${r.active} active ones stays under 300 MB`,
          figure: `RSS ${fmt(mb(r.loaded.rss), 0)} MB, heapUsed ${fmt(mb(r.loaded.heapUsed), 0)} MB (${r.loaded.inFlight} runs held; idle baseline RSS ${fmt(mb(r.baseline.rss), 0)} MB)`,
        },
      ]
    : [];
