import type { HotQuery, HotTransaction } from "./hot-path";
import type { Statement } from "./rows";

// Group commit (Postgres): step commits (and new runs, each one statement too) that several runs of one
// process have ready at the same moment go to the database in one transaction — one WAL flush and one
// BEGIN/COMMIT for all of them instead of one each. A commit that finds a free lane goes at once, alone (no
// added latency); the ones that arrive while every lane is busy wait and then go together, up to MAX_BATCH
// a transaction. A few lanes, not one: the database works on several transactions at once (its cores, its
// WAL flushes).
//
// Each statement is still its own run's whole commit, fenced by its own lease: a fenced-out statement
// writes nothing and returns no row, which fails that run's commit only. A statement that fails inside
// a batch (a constraint, a deadlock) aborts the transaction before anything is written, so every
// commit of the batch goes again on its own: one run's failure never rolls back another's. A failure of
// COMMIT itself is not retried: the batch may have been written (the connection broke after the
// server committed), and each caller gets the error, exactly as a single statement's caller would.

const MAX_BATCH = 64;
const LANES = 3;

type Waiting = { statement: Statement; resolve: (rows: unknown[]) => void; reject: (error: unknown) => void };

export type GroupCommitStats = { statements: number; transactions: number; batched: number; retriedAlone: number };

export function groupCommits(
  single: HotQuery,
  transaction: HotTransaction,
): { query: HotQuery; stats: GroupCommitStats } {
  const stats: GroupCommitStats = { statements: 0, transactions: 0, batched: 0, retriedAlone: 0 };
  let queue: Waiting[] = [];
  let lanesBusy = 0;

  async function alone(item: Waiting) {
    stats.transactions++;
    await single(item.statement).then(item.resolve, item.reject);
  }

  async function together(batch: Waiting[]) {
    stats.transactions++;
    stats.batched += batch.length;
    let committing = false;
    let results: unknown[][] = [];
    try {
      results = await transaction(async (query) => {
        const rows: unknown[][] = [];
        for (const item of batch) rows.push(await query(item.statement));
        committing = true; // past here, only COMMIT can fail
        return rows;
      });
    } catch (error) {
      if (committing) {
        for (const item of batch) item.reject(error);
        return;
      }
      // Nothing of the batch was written: each commit on its own, so a failure stays its run's.
      stats.retriedAlone += batch.length;
      for (const item of batch) await alone(item);
      return;
    }
    batch.forEach((item, i) => item.resolve(results[i]));
  }

  /** A lane: takes what is waiting, a batch at a time, until nothing is. */
  async function lane() {
    try {
      while (queue.length > 0) {
        const batch = queue.slice(0, MAX_BATCH);
        queue = queue.slice(batch.length);
        await (batch.length === 1 ? alone(batch[0]) : together(batch));
      }
    } finally {
      lanesBusy--; // in the same tick as the empty-queue check: nothing can be queued in between unseen
    }
  }

  const query = <T>(statement: Statement) =>
    new Promise<T[]>((resolve, reject) => {
      stats.statements++;
      queue.push({ statement, resolve: resolve as (rows: unknown[]) => void, reject });
      if (lanesBusy < LANES) {
        lanesBusy++;
        void lane();
      }
    });
  return { query, stats };
}
