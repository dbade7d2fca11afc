// "pure, 200 concurrent runs": 200 runs × 10 pure steps, all started at once (concurrent startRun
// calls), then driven by ONE worker with up to BENCH_CONCURRENCY runs in flight (default: all 200).
// A row of the main throughput table (steps/s in the same column as the sequential rows).
import type { PgHandle } from "../support/databases";
import { num } from "../support/env";
import type { Row } from "../support/report";
import type { Bench } from "../support/workload";
import { measure, type Provider, type Scenario } from "./throughput";

export function concurrentScenario(): Scenario {
  const runs = num("BENCH_CONCURRENT_RUNS", 200);
  const perRun = num("BENCH_CONCURRENT_STEPS", 10);
  return {
    name: `pure, ${runs} concurrent runs`,
    agent: "pure",
    steps: runs * perRun,
    perRun,
    concurrency: num("BENCH_CONCURRENCY", runs),
    startAtOnce: true,
  };
}

export const measureConcurrent = (db: string, provider: Provider, bench: Bench, pg: PgHandle | null): Promise<Row> =>
  measure(db, provider, bench, concurrentScenario(), pg);
