// The periodic purge of a deployment: every `intervalMs` (and once soon after start) finished runs older
// than the retention period are compacted (purgeFinishedRuns) and old schedule fires deleted, each
// schedule's newest ones kept (purgeScheduleFires). One purge at a time; a failure is logged
// and the next tick tries again — it never throws out. Its timers do not keep the process alive.
// Several processes may run it against one database: compaction is idempotent, so at worst they share work.
import { getConfig, type Config } from "@/lib/config";
import type { Db } from "@/lib/db";
import type { Logger } from "@/lib/runtime/types";
import { DEFAULT_PURGE_BATCH_SIZE, purgeFinishedRuns } from "./purge-finished-runs";
import { purgeScheduleFires } from "./purge-schedule-fires";

export const DEFAULT_RETENTION_INTERVAL_MS = 60 * 60 * 1000; // hourly: the period is counted in days
const FIRST_PURGE_DELAY_MS = 60 * 1000; // not in the middle of start-up

export type RetentionOptions = {
  db: Db;
  /** 0 (TETHER_RETENTION_DAYS unset) turns retention off: nothing is scheduled. */
  retentionDays: number;
  intervalMs?: number;
  batchSize?: number;
  logger: Logger;
  now?: () => Date;
  /** When the first purge runs; default a minute after start. */
  firstDelayMs?: number;
};

export type Retention = {
  /** Stops the timers, aborts a purge in progress between two runs, and waits for it to end. */
  stop(): Promise<void>;
  /** Runs one purge now (or waits for the one in progress); resolves when it has ended, never rejects. */
  runOnce(): Promise<void>;
};

export function startRetention(opts: RetentionOptions): Retention {
  if (!(opts.retentionDays > 0)) return { stop: async () => {}, runOnce: async () => {} };
  const now = opts.now ?? (() => new Date());
  const abort = new AbortController();
  let running: Promise<void> | null = null;

  const runOnce = (): Promise<void> => {
    if (abort.signal.aborted) return Promise.resolve();
    running ??= purge().finally(() => {
      running = null;
    });
    return running;
  };

  async function purge() {
    const started = Date.now();
    try {
      const at = now();
      const batchSize = opts.batchSize ?? DEFAULT_PURGE_BATCH_SIZE;
      const result = await purgeFinishedRuns(opts.db, {
        now: at,
        retentionDays: opts.retentionDays,
        batchSize,
        signal: abort.signal,
      });
      if (result.runs > 0 || result.checkpointsDeleted > 0 || result.eventsDeleted > 0) {
        opts.logger.info("retention: compacted finished runs", {
          ...result,
          retentionDays: opts.retentionDays,
          ms: Date.now() - started,
        });
      }
      const firesStarted = Date.now();
      const scheduleFiresDeleted = await purgeScheduleFires(opts.db, {
        now: at,
        retentionDays: opts.retentionDays,
        batchSize,
        signal: abort.signal,
      });
      if (scheduleFiresDeleted > 0) {
        opts.logger.info("retention: deleted old schedule fires", {
          scheduleFiresDeleted,
          retentionDays: opts.retentionDays,
          ms: Date.now() - firesStarted,
        });
      }
    } catch (error) {
      opts.logger.error("retention: purge failed (retried at the next interval)", {
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }

  const first = setTimeout(() => void runOnce(), opts.firstDelayMs ?? FIRST_PURGE_DELAY_MS);
  const interval = setInterval(() => void runOnce(), opts.intervalMs ?? DEFAULT_RETENTION_INTERVAL_MS);
  first.unref();
  interval.unref();

  return {
    runOnce,
    async stop() {
      clearTimeout(first);
      clearInterval(interval);
      abort.abort();
      await running;
    },
  };
}

/** TETHER_RETENTION_DAYS: unset, empty or 0 keeps finished runs whole forever; otherwise a positive number of days. */
export function retentionDaysFromEnv(config: Config = getConfig()): number {
  return config.worker.retentionDays;
}
