import { poolOf, providerOfDb, type Db } from "@/lib/db";
import { createMemoryFailureCounter, type FailureCounter, type ThrottleLimit } from "./failure-counter";
import { createMemoryLimiter, type Limiter, type RateLimit } from "./limiter";
import { createPostgresFailureCounter } from "./postgres-failure-counter";
import { createPostgresLimiter, poolQuery, type Query } from "./postgres-limiter";

// Where the limits are counted, by the database the process runs on: on Postgres in its tables, which
// every console replica shares; on the embedded SQLite default in this process's memory (SQLite serves
// one console process; a restart forgets the counts). One limiter per database and setting, kept for
// the process (and across Next's dev-mode module reloads).

type Cache<T> = { memory: Map<string, T>; shared: WeakMap<Db, Map<string, T>> };
const globalForLimits = globalThis as unknown as {
  tetherLimits?: { limiters: Cache<Limiter>; counters: Cache<FailureCounter> };
};
const caches = (globalForLimits.tetherLimits ??= {
  limiters: { memory: new Map(), shared: new WeakMap() },
  counters: { memory: new Map(), shared: new WeakMap() },
});

/** A statement runner for the database: the pg pool Prisma's adapter runs on, else Prisma itself. */
export function queryOf(db: Db): Query {
  const pool = poolOf(db);
  return pool ? poolQuery(pool) : <R>(sql: string, params: unknown[]) => db.$queryRawUnsafe<R[]>(sql, ...params);
}

function cached<T>(cache: Cache<T>, db: Db, setting: string, make: (shared: boolean) => T): T {
  const shared = providerOfDb(db) === "postgres";
  let map = shared ? cache.shared.get(db) : cache.memory;
  if (!map) cache.shared.set(db, (map = new Map()));
  let made = map.get(setting);
  if (!made) map.set(setting, (made = make(shared)));
  return made;
}

export function limiterFor(db: Db, limit: RateLimit): Limiter {
  return cached(caches.limiters, db, `${limit.perSecond},${limit.burst}`, (shared) =>
    shared ? createPostgresLimiter(queryOf(db), limit) : createMemoryLimiter(limit),
  );
}

/** The failure count of `namespace` (e.g. "account", "address"), which keeps its keys apart from other counts'. */
export function failureCounterFor(db: Db, limit: ThrottleLimit & { namespace: string }): FailureCounter {
  return cached(caches.counters, db, `${limit.namespace}:${limit.max},${limit.windowMs}`, (shared) =>
    shared ? createPostgresFailureCounter(queryOf(db), limit) : createMemoryFailureCounter(limit),
  );
}
