import { randomUUID } from "node:crypto";
import type { Query } from "./postgres-limiter";
import { lockFromFailures, type FailureCounter, type ThrottleLimit } from "./failure-counter";

// The sign-in throttle's failures in Postgres (the ThrottleFailure table, UNLOGGED): a row per failure,
// so console replicas on one database count the same failures and lock the same keys. Each call is one
// statement. A failure also deletes its key's rows that left the window; one failure in a hundred sweeps
// every key of this counter that left it (keys are typed by strangers: the table must not only grow).
// `namespace` keeps counters with different windows (accounts, addresses) apart in the one table.

const SWEEP_EVERY = 100;

export function createPostgresFailureCounter(
  query: Query,
  opts: ThrottleLimit & { namespace: string; now?: () => number; random?: () => number },
): FailureCounter {
  const { max, windowMs, namespace } = opts;
  const now = opts.now ?? (() => Date.now());
  const random = opts.random ?? Math.random;
  const keyOf = (key: string) => `${namespace}:${key}`;
  return {
    async retryAfterMs(key) {
      const t = Math.floor(now());
      const rows = await query<{ at: string | number }>(
        `SELECT "at" FROM "ThrottleFailure" WHERE "key" = $1 AND "at" > $2 ORDER BY "at" DESC LIMIT $3`,
        [keyOf(key), t - windowMs, max],
      );
      return lockFromFailures(rows.map((r) => Number(r.at)).reverse(), { max, windowMs }, t);
    },
    async fail(key) {
      const t = Math.floor(now());
      const sweep = random() < 1 / SWEEP_EVERY;
      // The whole namespace's old rows when sweeping, else this key's: in the statement that counts the failure.
      const gone = sweep ? `starts_with("key", $4)` : `"key" = $4`;
      await query(
        `WITH gone AS (DELETE FROM "ThrottleFailure" WHERE ${gone} AND "at" <= $3) INSERT INTO "ThrottleFailure" ("id", "key", "at") VALUES ($1, $2, $5)`,
        [randomUUID(), keyOf(key), t - windowMs, sweep ? `${namespace}:` : keyOf(key), t],
      );
    },
    async reset(key) {
      await query(`DELETE FROM "ThrottleFailure" WHERE "key" = $1`, [keyOf(key)]);
    },
  };
}
