// Where a pure step's Node CPU goes: `npm run bench:profile`. Runs the bench's pure scenario (one worker,
// one run at a time, ~1 KB tool results) on Postgres under the V8 sampling profiler (node:inspector), then
// prints the top self-time functions and the self time grouped by folder. The profile is also written to
// bench/results/pure-step.cpuprofile (open it in Chrome DevTools › Performance, or VS Code).
// PROFILE_MODE=concurrent profiles the shape of `bench:peers`' concurrent row instead: PROFILE_RUNS (default 200)
// runs of 10 steps started at once, then one worker driving all of them; both phases are timed, and profiled.
// Knobs (env): PROFILE_STEPS (default 2000), PROFILE_DB (postgres | sqlite), PROFILE_TOP (default 20),
// TETHER_BENCH_PG_URL (admin database).
import { mkdirSync, writeFileSync } from "node:fs";
import { Session, type Profiler } from "node:inspector/promises";
import path from "node:path";
import { cpuPerStep, cpuWindow } from "./support/cpu";
import { createPostgres, createSqlite } from "./support/databases";
import { num } from "./support/env";
import { grantScenarioAgents } from "./support/scenario-agents";
import { selfTimes } from "./support/profile-groups";
import { buildBench } from "./support/workload";
import { expectCompleted, startRuns, warmUp } from "./scenarios/throughput";

const STEPS = num("PROFILE_STEPS", 2000);
const TOP = num("PROFILE_TOP", 20);
const CONCURRENT = process.env.PROFILE_MODE === "concurrent";
const PER_RUN = CONCURRENT ? 10 : 20;
const RUNS = CONCURRENT ? num("PROFILE_RUNS", 200) : Math.max(1, Math.round(STEPS / PER_RUN));
const provider = process.env.PROFILE_DB === "sqlite" ? "sqlite" : "postgres";

async function database(): Promise<{ url: string; name: string | null; drop: () => Promise<void> | void }> {
  if (provider === "sqlite") {
    const db = await createSqlite();
    return { url: db.url, name: null, drop: db.drop };
  }
  const pg = await createPostgres();
  if (typeof pg === "string") throw new Error(pg);
  return { url: pg.url, name: pg.name, drop: pg.drop };
}

async function main() {
  const db = await database();
  try {
    const bench = await buildBench(db.url, provider);
    try {
      await grantScenarioAgents(bench.runtime);
      await warmUp(bench);
      const ids = CONCURRENT ? [] : await startRuns(bench, "pure", RUNS, PER_RUN);
      const session = new Session();
      session.connect();
      await session.post("Profiler.enable");
      await session.post("Profiler.setSamplingInterval", { interval: 100 }); // µs
      await session.post("Profiler.start");
      const commitsBefore = bench.storeCalls.commitStep ?? 0;
      const endCpu = cpuWindow(db.name);
      const t0 = performance.now();
      if (CONCURRENT) ids.push(...(await startRuns(bench, "pure", RUNS, PER_RUN, true)));
      const startMs = performance.now() - t0;
      await bench.runtime.createWorker({ concurrency: CONCURRENT ? RUNS : 1 }).drain();
      const wallMs = performance.now() - t0;
      if (CONCURRENT)
        console.log(
          `\n  ${RUNS} runs started at once in ${startMs.toFixed(0)} ms, then driven in ${(wallMs - startMs).toFixed(0)} ms with ${bench.storeCalls.commitStep - commitsBefore} step commits`,
        );
      const cpu = cpuPerStep(endCpu(), RUNS * PER_RUN);
      const { profile } = await session.post("Profiler.stop");
      session.disconnect();
      await expectCompleted(bench, ids, PER_RUN);
      report(profile, RUNS * PER_RUN, wallMs, cpu);
    } finally {
      await bench.db.$disconnect();
    }
  } finally {
    await db.drop();
  }
}

function report(
  profile: Profiler.Profile,
  steps: number,
  wallMs: number,
  cpu: { nodeMs: number; backendMs: number | null },
) {
  const out = path.resolve("bench/results/pure-step.cpuprofile");
  mkdirSync(path.dirname(out), { recursive: true });
  writeFileSync(out, JSON.stringify(profile));
  const functions = selfTimes(profile);
  const sampled = functions.reduce((a, f) => a + f.selfMs, 0);
  const f = (n: number, d = 3) => n.toFixed(d);
  console.log(
    `\nPure step profile — ${provider}, ${steps} steps, one worker, ${CONCURRENT ? `${RUNS} runs started at once and driven together (startRun included)` : "one run at a time"} (sampling every 0.1 ms)`,
  );
  console.log(
    `  ${f(wallMs / steps)} ms wall per step · Node CPU ${f(cpu.nodeMs)} ms per step (process.cpuUsage, profiler overhead included) · Postgres backends ${cpu.backendMs === null ? "n/a" : `${f(cpu.backendMs)} ms`} per step`,
  );
  console.log(`  sampled on the JS thread, not idle: ${f(sampled / steps)} ms per step\n`);

  const groups = new Map<string, number>();
  for (const fn of functions) groups.set(fn.group, (groups.get(fn.group) ?? 0) + fn.selfMs);
  console.log("Self time by folder (ms per step, share of the sampled non-idle time)");
  for (const [group, ms] of [...groups].sort((a, b) => b[1] - a[1])) {
    console.log(
      `  ${group.padEnd(8)} ${f(ms / steps).padStart(7)}  ${((100 * ms) / sampled).toFixed(1).padStart(5)} %`,
    );
  }
  console.log(`\nTop ${TOP} functions by self time (ms per step)`);
  for (const fn of functions.slice(0, TOP)) {
    console.log(
      `  ${f(fn.selfMs / steps).padStart(7)}  ${((100 * fn.selfMs) / sampled).toFixed(1).padStart(5)} %  ${fn.group.padEnd(8)} ${fn.name}  ${fn.where}`,
    );
  }
  console.log(
    `\nprofile: ${path.relative(process.cwd(), out)} (folders as bench/support/profile-groups.ts assigns them)`,
  );
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
