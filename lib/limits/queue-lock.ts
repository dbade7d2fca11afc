import pg from "pg";
import { databaseUrlOf, providerOfDb, type Db } from "@/lib/db";

// One at a time per key, across every process on the database: the queued-runs cap counts an agent's
// queued runs and then writes one, and two starts that counted at once would both fit under the cap.
// Within a process a promise chain per key orders them; on Postgres a transaction-scoped advisory lock
// on the key orders them across console replicas too. The lock is held on a connection of a small pool
// of its own: a start waiting for the lock must never hold one of the connections the holder needs to
// write its run (the shared pool's), or a burst of starts would wait on each other for ever.

const LOCK_NAMESPACE = 0x7e7e; // the first key of pg_advisory_xact_lock(int, int): Tether's queue locks
const LOCK_POOL_SIZE = 2;

const chains = new Map<string, Promise<unknown>>();
const lockPools = new WeakMap<Db, pg.Pool>();

function lockPool(db: Db): pg.Pool {
  let pool = lockPools.get(db);
  if (!pool) {
    pool = new pg.Pool({
      connectionString: databaseUrlOf(db),
      max: LOCK_POOL_SIZE,
      allowExitOnIdle: true,
      idleTimeoutMillis: 2_000,
    });
    pool.on("error", () => {}); // an idle connection the server closed is dropped, not thrown
    lockPools.set(db, pool);
  }
  return pool;
}

async function withAdvisoryLock<T>(db: Db, key: string, fn: () => Promise<T>): Promise<T> {
  const client = await lockPool(db).connect();
  let broken: Error | undefined;
  try {
    await client.query("BEGIN");
    await client.query("SELECT pg_advisory_xact_lock($1::int, hashtext($2))", [LOCK_NAMESPACE, key]);
    try {
      return await fn();
    } finally {
      await client.query("COMMIT").catch((error: Error) => {
        broken = error;
      });
    }
  } catch (error) {
    broken ??= error as Error;
    throw error;
  } finally {
    client.release(broken); // a connection that failed is closed, which ends its transaction and lock
  }
}

/** Runs `fn` while no other caller holds `key` in this process or (on Postgres) in any process on the database. */
export async function withKeyLock<T>(db: Db, key: string, fn: () => Promise<T>): Promise<T> {
  const previous = chains.get(key) ?? Promise.resolve();
  const run = previous
    .catch(() => {})
    .then(() => (providerOfDb(db) === "postgres" && databaseUrlOf(db) ? withAdvisoryLock(db, key, fn) : fn()));
  const settled = run.catch(() => {});
  chains.set(key, settled);
  void settled.then(() => {
    if (chains.get(key) === settled) chains.delete(key);
  });
  return run;
}
