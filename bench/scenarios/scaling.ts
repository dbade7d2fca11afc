// Scaling with worker processes on ONE Postgres database: for N in BENCH_SCALING_PROCESSES (1,2,4),
// N real worker processes (bench/support/worker-process.ts, `node --import tsx`) are spawned and
// warmed up; then N × BENCH_SCALING_RUNS runs of BENCH_SCALING_STEPS pure steps are created, every
// process is told GO (worker.start(): claims, LISTEN/NOTIFY wake-ups, polling as fallback), and the
// wall clock runs until the processes have reported every run completed (from their own commits,
// no polling of the database). Next to it, in the same run, the one-client commit floor: single-row
// autocommit INSERTs from one pg client (commit-floor.ts). A pure step costs one commit, so steps/s
// can pass the one-client floor only through group commit (many connections committing together).
// Goal: steps/s rises with each doubling of processes until the commit floor is reached.
import { commitFloor } from "../support/commit-floor";
import { cpuBetween, cpuSample } from "../support/cpu";
import type { PgHandle } from "../support/databases";
import { list, num } from "../support/env";
import type { Goal } from "../support/goals";
import { cpus } from "node:os";
import { fmt, printTable } from "../support/report";
import { spawnWorkerProcess, type WorkerChild } from "../support/spawn";
import type { Bench } from "../support/workload";

export type ScalingPoint = {
  processes: number;
  runs: number;
  steps: number;
  wallMs: number;
  stepsPerSec: number;
  /** Write commits counted at the driver in the worker processes, per second of the phase. */
  commitsPerSec: number;
  statementsPerStep: number;
  /** CPU over the phase, in cores: the worker processes (sum), the Postgres backends of the bench
   *  database, and the whole machine (every process on it, other people's included). */
  workerCores: number;
  backendCores: number;
  machineCores: number | null;
  engineLogLines: number;
  engineLog: string[];
};
export type ScalingResult = {
  floor: { commits: number; ms: number; perSec: number };
  points: ScalingPoint[];
  concurrency: number;
  stepsPerRun: number;
};

let tagSeq = 0;

async function createRuns(bench: Bench, n: number, steps: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i += 10) {
    const batch = Array.from({ length: Math.min(10, n - i) }, () =>
      bench.runtime
        .startRun({ agent: bench.agents.pure.slug, input: { tag: `scale${tagSeq++}`, steps } })
        .then((r) => r.run.id),
    );
    ids.push(...(await Promise.all(batch)));
  }
  return ids;
}

async function unfinished(bench: Bench): Promise<number> {
  const [{ n }] = await bench.db.$queryRawUnsafe<Array<{ n: number }>>(
    `SELECT count(*)::int AS n FROM "Run" WHERE "agentSlug" = $1 AND "status" NOT IN ('COMPLETED', 'FAILED', 'CANCELLED')`,
    bench.agents.pure.slug,
  );
  return n;
}

async function phase(
  pg: PgHandle,
  bench: Bench,
  processes: number,
  runsPerProcess: number,
  stepsPerRun: number,
  concurrency: number,
): Promise<ScalingPoint> {
  const children: WorkerChild[] = Array.from({ length: processes }, () =>
    spawnWorkerProcess({
      DATABASE_URL: pg.url,
      BENCH_WORKER_CONCURRENCY: String(concurrency),
      BENCH_WORKER_POLL_MS: "1000",
    }),
  );
  try {
    await Promise.all(children.map((c) => c.next("READY", 120_000)));
    for (const c of children) c.send("WARM");
    await Promise.all(children.map((c) => c.next("WARMED", 120_000)));
    for (let i = 0; (await unfinished(bench)) > 0; i++) {
      if (i > 400) throw new Error("warm-up runs did not finish");
      await new Promise((r) => setTimeout(r, 25));
    }
    const total = processes * runsPerProcess;
    const ids = await createRuns(bench, total, stepsPerRun);
    const done = new Map<WorkerChild, number>();
    let resolveAll!: () => void;
    const allDone = new Promise<void>((resolve) => (resolveAll = resolve));
    for (const c of children) {
      c.onProgress((p) => {
        done.set(c, p.completed);
        if ([...done.values()].reduce((a, b) => a + b, 0) >= total) resolveAll();
      });
    }
    const cpu0 = cpuSample(pg.name);
    const t0 = performance.now();
    for (const c of children) c.send("GO");
    const timeout = num("BENCH_SCALING_TIMEOUT_MS", 300_000);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timedOut = await Promise.race([
      allDone.then(() => false),
      new Promise<boolean>((r) => (timer = setTimeout(() => r(true), timeout))),
    ]);
    clearTimeout(timer);
    const wallMs = performance.now() - t0;
    const cpu = cpuBetween(cpu0, cpuSample(pg.name));
    if (timedOut)
      throw new Error(
        `scaling, ${processes} processes: not every run completed within ${timeout} ms (${[...done.values()].join("+")} of ${total})`,
      );
    for (const c of children) c.send("STOP");
    const stats = (await Promise.all(children.map((c) => c.next("STATS", 60_000)))).map((l) =>
      JSON.parse(l.slice("STATS ".length)),
    );
    const [{ n: completed }] = await bench.db.$queryRawUnsafe<Array<{ n: number }>>(
      `SELECT count(*)::int AS n FROM "Run" WHERE "id" = ANY($1::text[]) AND "status" = 'COMPLETED'`,
      ids,
    );
    if (completed !== total)
      throw new Error(`scaling, ${processes} processes: ${completed} of ${total} runs completed`);
    const steps = total * stepsPerRun;
    const sum = (k: string) => stats.reduce((a, s) => a + Number(s[k] ?? 0), 0);
    return {
      processes,
      runs: total,
      steps,
      wallMs,
      stepsPerSec: steps / (wallMs / 1000),
      commitsPerSec: sum("writeCommits") / (wallMs / 1000),
      statementsPerStep: sum("statements") / steps,
      workerCores: sum("cpuMs") / wallMs,
      backendCores: cpu.backendCores,
      machineCores: cpu.machineCores,
      engineLogLines: sum("logLines"),
      engineLog: stats.flatMap((s) => (s.log as string[]).map((l) => `[${s.pid}] ${l}`)).slice(0, 10),
    };
  } finally {
    await Promise.all(children.map((c) => c.kill()));
  }
}

export async function scaling(pg: PgHandle, bench: Bench, progress: (what: string) => void): Promise<ScalingResult> {
  const counts = list("BENCH_SCALING_PROCESSES", ["1", "2", "4"]).map(Number);
  const runsPerProcess = num("BENCH_SCALING_RUNS", 100);
  const stepsPerRun = num("BENCH_SCALING_STEPS", 10);
  const concurrency = num("BENCH_SCALING_CONCURRENCY", 64);
  const floor = await commitFloor(pg.url, num("BENCH_FLOOR_MS", 3000));
  progress("postgres · one-client commit floor");
  const points: ScalingPoint[] = [];
  for (const n of counts) {
    points.push(await phase(pg, bench, n, runsPerProcess, stepsPerRun, concurrency));
    progress(`postgres · scaling, ${n} worker process${n > 1 ? "es" : ""}`);
  }
  return { floor, points, concurrency, stepsPerRun };
}

export function printScaling(r: ScalingResult | null) {
  if (!r) return;
  console.log(
    `\nScaling on Postgres (worker processes on one database, each worker.start() with concurrency ${r.concurrency}; runs of ${r.stepsPerRun} pure steps created beforehand; wall clock GO → every run completed)`,
  );
  console.log(
    `  one-client commit floor: ${fmt(r.floor.perSec, 0)} commits/s (${r.floor.commits} single-row autocommit INSERTs of 1 KB from one pg client in ${fmt(r.floor.ms / 1000)} s)`,
  );
  const base = r.points[0]?.stepsPerSec ?? NaN;
  printTable(
    [
      "processes",
      "runs",
      "steps",
      "wall s",
      "steps/s",
      "× first",
      "commits/s",
      "% of floor",
      "stmts/step",
      "| CPU: workers",
      "pg backends",
      "rest of machine",
      "idle",
      "| CPU ms/step: workers",
      "pg backends",
    ],
    r.points.map((p) => {
      const rest = p.machineCores === null ? null : Math.max(0, p.machineCores - p.workerCores - p.backendCores);
      return [
        `${p.processes}`,
        `${p.runs}`,
        `${p.steps}`,
        fmt(p.wallMs / 1000),
        fmt(p.stepsPerSec, 0),
        fmt(p.stepsPerSec / base),
        fmt(p.commitsPerSec, 0),
        `${fmt((100 * p.commitsPerSec) / r.floor.perSec, 0)} %`,
        fmt(p.statementsPerStep),
        `| ${fmt(p.workerCores)}`,
        fmt(p.backendCores),
        rest === null ? "n/a" : fmt(rest),
        p.machineCores === null ? "n/a" : fmt(Math.max(0, cpus().length - p.machineCores)),
        `| ${fmt((p.workerCores * p.wallMs) / p.steps)}`,
        fmt((p.backendCores * p.wallMs) / p.steps),
      ];
    }),
  );
  console.log(
    `  commits/s = write commits counted at the driver in the worker processes. CPU in cores of ${cpus().length}, over the phase (/proc): the worker processes,`,
  );
  console.log(
    "  the Postgres backends of the bench database, everything else on the machine (the bench itself, Postgres's own processes, other people's work), idle.",
  );
  for (const p of r.points.filter((x) => x.engineLogLines > 0)) {
    console.log(
      `  ${p.processes} processes: the engine logged ${p.engineLogLines} warnings/errors, first: ${p.engineLog.slice(0, 3).join(" · ")}`,
    );
  }
}

export function scalingGoals(r: ScalingResult | null): Goal[] {
  if (!r || r.points.length < 2) return [];
  const pairs = r.points.slice(1).map((b, i) => {
    const a = r.points[i];
    const gain = b.stepsPerSec / a.stepsPerSec;
    const atFloor = a.commitsPerSec >= r.floor.perSec;
    const idle = b.machineCores === null ? null : Math.max(0, cpus().length - b.machineCores);
    return { a, b, gain, atFloor, idle, ok: gain >= 1.3 || atFloor };
  });
  return [
    {
      id: "scaling",
      db: "postgres",
      ok: pairs.every((p) => p.ok),
      target: `${r.points.map((p) => p.processes).join(" → ")} worker processes scale until the commit floor (≥ 1.3× per step up, unless already at the one-client floor of ${fmt(r.floor.perSec, 0)} commits/s)`,
      figure: pairs
        .map(
          (p) =>
            `${p.a.processes}→${p.b.processes}: ${fmt(p.gain)}× (${fmt(p.a.stepsPerSec, 0)} → ${fmt(p.b.stepsPerSec, 0)} steps/s${p.atFloor ? ", at the floor" : ""}${p.idle !== null ? `; ${fmt(p.idle)} cores idle` : ""})`,
        )
        .join("; "),
    },
  ];
}
