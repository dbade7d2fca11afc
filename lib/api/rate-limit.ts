import { getConfig, type Config, type RateLimit } from "@/lib/config";
import { AppError } from "@/lib/runtime/errors";

// Requests per token and per person on the API and the console's routes: a token bucket per key, in
// memory (per process: N console processes allow N times the rate; a shared limiter would need Redis
// or the database). A key refills `perSecond` requests a second up to `burst`; an empty bucket answers
// 429 with Retry-After. TETHER_RATE_LIMIT="<per second>,<burst>" (default 20,200: well above what a
// script or an open console asks — the inbox's change feed polls twice a second), or "off".

export type { RateLimit };

/** TETHER_RATE_LIMIT → the limit, null when off (lib/config.ts parses it: a bad value stops start-up). */
export function rateLimitFromEnv(config: Config = getConfig()): RateLimit | null {
  return config.server.rateLimit;
}

export function createRateLimiter(limit: RateLimit, now: () => number = Date.now) {
  const buckets = new Map<string, { tokens: number; at: number }>();
  return {
    /** Takes one request from the key's bucket: 0 when allowed, else milliseconds until one is. */
    take(key: string): number {
      const t = now();
      const bucket = buckets.get(key) ?? { tokens: limit.burst, at: t };
      bucket.tokens = Math.min(limit.burst, bucket.tokens + ((t - bucket.at) / 1000) * limit.perSecond);
      bucket.at = t;
      buckets.delete(key); // re-inserted last: the map's order is least recently used first
      buckets.set(key, bucket);
      if (buckets.size > 50_000) buckets.delete(buckets.keys().next().value!); // bounded memory
      if (bucket.tokens >= 1) {
        bucket.tokens -= 1;
        return 0;
      }
      return Math.ceil(((1 - bucket.tokens) / limit.perSecond) * 1000);
    },
  };
}

const globalForLimiter = globalThis as unknown as { tetherRateLimiter?: { setting: string; limiter: ReturnType<typeof createRateLimiter> | null } };

/** The process's limiter, made again when TETHER_RATE_LIMIT changes (tests change it; a deployment sets it once). */
function processLimiter() {
  const limit = rateLimitFromEnv();
  const setting = limit ? `${limit.perSecond},${limit.burst}` : "off";
  const current = globalForLimiter.tetherRateLimiter;
  if (current && current.setting === setting) return current.limiter;
  const limiter = limit ? createRateLimiter(limit) : null;
  globalForLimiter.tetherRateLimiter = { setting, limiter };
  return limiter;
}

/** Every key must have room (a token's own bucket and its person's): 429 RATE_LIMITED otherwise. */
export function enforceRateLimit(keys: string[]): void {
  const limiter = processLimiter();
  if (!limiter) return;
  const waitMs = Math.max(...keys.map((key) => limiter.take(key)));
  if (waitMs > 0) {
    const seconds = Math.ceil(waitMs / 1000);
    throw new AppError("RATE_LIMITED", { message: `rate limited: ${keys.join(", ")}`, userMessage: `Too many requests: try again in ${seconds} s.`, retryAfterSeconds: seconds });
  }
}
