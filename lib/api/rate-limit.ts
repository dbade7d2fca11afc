import { getConfig, type Config, type RateLimit } from "@/lib/config";
import { getDb, type Db } from "@/lib/db";
import { limiterFor } from "@/lib/limits/limiter-for";
import { AppError } from "@/lib/runtime/errors";

// Requests per token and per person on the API, the console's routes and its server actions: a token
// bucket per key (lib/limits). On Postgres the buckets are rows every console replica shares; on the
// embedded SQLite default they live in the process's memory. A key refills `perSecond` requests a
// second up to `burst`; an empty bucket answers 429 with Retry-After. TETHER_RATE_LIMIT="<per second>,<burst>"
// (default 20,200: well above what a script or an open console asks — the inbox's change feed polls
// twice a second), or "off".

export type { RateLimit };

/** TETHER_RATE_LIMIT → the limit, null when off (lib/config.ts parses it: a bad value stops start-up). */
export function rateLimitFromEnv(config: Config = getConfig()): RateLimit | null {
  return config.server.rateLimit;
}

/** Every key must have room (a token's own bucket and its person's): 429 RATE_LIMITED otherwise. */
export async function enforceRateLimit(keys: string[], db: Db = getDb()): Promise<void> {
  const limit = rateLimitFromEnv();
  if (!limit) return;
  const waitMs = await limiterFor(db, limit).take(keys);
  if (waitMs > 0) {
    const seconds = Math.ceil(waitMs / 1000);
    throw new AppError("RATE_LIMITED", {
      message: `rate limited: ${keys.join(", ")}`,
      userMessage: `Too many requests: try again in ${seconds} s.`,
      retryAfterSeconds: seconds,
    });
  }
}
