import type { RateLimit } from "@/lib/config";

// The request rate limit: a token bucket per key ("token:<id>", "person:<email>"). A key refills
// `perSecond` requests a second up to `burst`; a request takes one. Two implementations answer the same
// way: in this process's memory (the embedded SQLite default: one console process) and in a Postgres
// table every console replica shares (./postgres-limiter.ts). ./limiter-for.ts picks by database.

export type { RateLimit };

export type Limiter = {
  /**
   * Takes one request from every key's bucket (a key without room loses nothing): 0 when every key had
   * room, else the milliseconds until the emptiest one has.
   */
  take(keys: readonly string[]): Promise<number>;
};

/** Milliseconds until a bucket holding `tokens` has a whole one. */
export const waitForToken = (tokens: number, limit: RateLimit): number =>
  Math.ceil(((1 - tokens) / limit.perSecond) * 1000);

/** One process's buckets, least recently used dropped past 50,000 keys (bounded memory). */
export function createMemoryBuckets(limit: RateLimit, now: () => number = Date.now) {
  const buckets = new Map<string, { tokens: number; at: number }>();
  return {
    /** Takes one request from the key's bucket: 0 when allowed, else milliseconds until one is. */
    take(key: string): number {
      const t = now();
      const bucket = buckets.get(key) ?? { tokens: limit.burst, at: t };
      bucket.tokens = Math.min(limit.burst, bucket.tokens + (Math.max(0, t - bucket.at) / 1000) * limit.perSecond);
      bucket.at = Math.max(bucket.at, t);
      buckets.delete(key); // re-inserted last: the map's order is least recently used first
      buckets.set(key, bucket);
      if (buckets.size > 50_000) buckets.delete(buckets.keys().next().value!);
      if (bucket.tokens >= 1) {
        bucket.tokens -= 1;
        return 0;
      }
      return waitForToken(bucket.tokens, limit);
    },
  };
}

export function createMemoryLimiter(limit: RateLimit, now: () => number = Date.now): Limiter {
  const buckets = createMemoryBuckets(limit, now);
  return {
    async take(keys) {
      return Math.max(0, ...[...new Set(keys)].map((key) => buckets.take(key)));
    },
  };
}
