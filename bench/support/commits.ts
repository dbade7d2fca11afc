import type { RunStatus } from "../../lib/runtime";
import { num } from "./env";
import type { Bench, CommitListener } from "./workload";

// What the latency scenarios wait for: a run's step commit, as the worker saw its commitStep
// resolve (the store's transaction has committed: on Postgres the statement returned, so any
// reader sees it). Every commit is logged by run, so a commit that lands before anyone waits for it
// is not missed.

export type SeenCommit = { at: number; status: RunStatus; step: number; packetId: string | null };

export class CommitLog {
  private byRun = new Map<string, SeenCommit[]>();
  private waiters = new Set<{ runId: string; match: (c: SeenCommit) => boolean; resolve: (c: SeenCommit) => void }>();
  private readonly off: () => void;

  constructor(onCommit: (listener: CommitListener) => () => void) {
    this.off = onCommit((commit, at) => {
      const runId = commit.lease.runId;
      const seen: SeenCommit = {
        at,
        status: commit.status,
        step: commit.state.step,
        packetId: commit.createPacket?.id ?? null,
      };
      const list = this.byRun.get(runId) ?? [];
      list.push(seen);
      this.byRun.set(runId, list);
      for (const w of this.waiters) {
        if (w.runId === runId && w.match(seen)) {
          this.waiters.delete(w);
          w.resolve(seen);
        }
      }
    });
  }

  /** The first commit of `runId` that matches (already seen or still to come); null after timeoutMs. */
  until(runId: string, match: (c: SeenCommit) => boolean, timeoutMs: number): Promise<SeenCommit | null> {
    const seen = this.byRun.get(runId)?.find(match);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        resolve(null);
      }, timeoutMs);
      const waiter = {
        runId,
        match,
        resolve: (c: SeenCommit) => {
          clearTimeout(timer);
          resolve(c);
        },
      };
      this.waiters.add(waiter);
    });
  }

  forget(runId: string) {
    this.byRun.delete(runId);
  }

  close() {
    this.off();
    this.byRun.clear();
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** How long a latency round waits for the commit it times: a round without it by then is counted missed. */
export const ROUND_TIMEOUT_MS = 10_000;

/**
 * What the latency scenarios measure against: a started worker (worker.start(), the long-lived loop) whose fallback
 * poll is BENCH_POLL_MS (default 60 s), so that a wake-up that does not arrive shows as a timeout instead of hiding
 * behind a poll, and the log of its commits. Both stop when `measure` settles.
 */
export async function withStartedWorker<T>(bench: Bench, measure: (log: CommitLog) => Promise<T>): Promise<T> {
  const log = new CommitLog(bench.onCommit);
  const worker = bench.runtime.createWorker({ pollMs: num("BENCH_POLL_MS", 60_000) });
  worker.start();
  try {
    return await measure(log);
  } finally {
    await worker.stop();
    log.close();
  }
}
