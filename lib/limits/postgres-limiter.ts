import type pg from "pg";
import { waitForToken, type Limiter, type RateLimit } from "./limiter";

// The rate limit's buckets in Postgres (the RateLimitBucket table, UNLOGGED), so console replicas on one
// database share them: a person alternating between two replicas gets the limit once, not twice. One
// statement a request, whatever the number of keys: an upsert that refills each key's bucket by the time
// since its last take, takes one token where there is one, and returns what it decided. The row is
// locked for the statement, so concurrent requests on any replica are counted one after the other.
// Keys are taken in sorted order: two requests over the same keys cannot deadlock.
// The clock is the caller's (epoch ms); a replica whose clock lags never moves a bucket back in time.
// Keys are tokens and signed-in people, never a stranger's input: the table holds one row per principal.

/** Runs one parameterised statement (a pg pool's query, or Prisma's $queryRawUnsafe). */
export type Query = <R>(sql: string, params: unknown[]) => Promise<R[]>;

const TAKE = `
INSERT INTO "RateLimitBucket" AS b ("key", "tokens", "at", "allowed")
SELECT k, $2::float8 - 1, $3::bigint, true FROM unnest($1::text[]) AS k
ON CONFLICT ("key") DO UPDATE SET
  "tokens" = LEAST($2::float8, b."tokens" + GREATEST(0, $3::bigint - b."at") * $4::float8)
    - CASE WHEN LEAST($2::float8, b."tokens" + GREATEST(0, $3::bigint - b."at") * $4::float8) >= 1 THEN 1 ELSE 0 END,
  "allowed" = LEAST($2::float8, b."tokens" + GREATEST(0, $3::bigint - b."at") * $4::float8) >= 1,
  "at" = GREATEST(b."at", $3::bigint)
RETURNING "tokens", "allowed"`;

export function createPostgresLimiter(query: Query, limit: RateLimit, now: () => number = Date.now): Limiter {
  return {
    async take(keys) {
      const sorted = [...new Set(keys)].sort();
      if (sorted.length === 0) return 0;
      const rows = await query<{ tokens: number; allowed: boolean }>(TAKE, [
        sorted,
        limit.burst,
        Math.floor(now()),
        limit.perSecond / 1000,
      ]);
      return Math.max(0, ...rows.filter((r) => !r.allowed).map((r) => waitForToken(Number(r.tokens), limit)));
    },
  };
}

/** A Query over a pg pool (the one Prisma's adapter runs on: no connection of its own). */
export const poolQuery =
  (pool: pg.Pool): Query =>
  async <R>(sql: string, params: unknown[]) =>
    (await pool.query(sql, params)).rows as R[];
