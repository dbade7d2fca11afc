// The cost of the request limits on each database (lib/limits): one limiter take per API request (a
// token's bucket and its person's, one statement on Postgres; memory on SQLite), the same take by 8
// requests at once on one person's bucket (they queue on its row), and the queued-runs cap's check on a
// run start (the agent's queue lock + the count; the start itself not included). Knob: BENCH_LIMITS_CALLS.
import { withRoomInQueue } from "../../lib/api/queued-runs";
import { limiterFor } from "../../lib/limits/limiter-for";
import { num } from "../support/env";
import { type LatencyStats, printLatencies, stats } from "../support/report";
import type { Bench } from "../support/workload";

export type LimitsResult = {
  db: string;
  calls: number;
  take: LatencyStats;
  contended: LatencyStats;
  queueCheck: LatencyStats;
};

const ROOMY = { perSecond: 1e9, burst: 1e9 }; // every take allowed: the cost measured is the counting

async function timed(calls: number, concurrency: number, fn: (i: number) => Promise<unknown>): Promise<LatencyStats> {
  const ms: number[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < calls) {
        const i = next++;
        const t0 = performance.now();
        await fn(i);
        ms.push(performance.now() - t0);
      }
    }),
  );
  return stats(ms);
}

export async function limitsCost(db: string, bench: Bench): Promise<LimitsResult> {
  const calls = num("BENCH_LIMITS_CALLS", 2_000);
  const limiter = limiterFor(bench.db, ROOMY);
  const run = `${process.pid}-${Date.now()}`;
  await timed(100, 1, (i) => limiter.take([`token:bench-${run}-${i % 50}`, `person:bench-${run}-${i % 20}`])); // warm
  const take = await timed(calls, 1, (i) =>
    limiter.take([`token:bench-${run}-${i % 50}`, `person:bench-${run}-${i % 20}`]),
  );
  const contended = await timed(calls, 8, (i) =>
    limiter.take([`token:bench-${run}-c${i % 8}`, `person:bench-${run}-contended`]),
  );
  const agent = `bench-cap-${run}`;
  const queueCheck = await timed(Math.min(calls, 500), 1, () =>
    withRoomInQueue(bench.db, agent, async () => null, 10_000),
  );
  return { db, calls, take, contended, queueCheck };
}

export function printLimits(results: LimitsResult[]) {
  if (results.length === 0) return;
  const title = `Request limits (lib/limits): SQLite counts in memory, Postgres in its UNLOGGED tables every replica shares; ${results[0].calls} takes each`;
  printLatencies(title, "call", results, (r) => [
    ["rate limit take (token + person), one at a time", r.take],
    ["  the same, 8 at once on one person's bucket", r.contended],
    ["queued-runs cap check (queue lock + count)", r.queueCheck],
  ]);
}
