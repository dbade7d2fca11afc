// The sign-in throttle's count (lib/auth/throttle.ts): failures per key within a sliding window. A key
// with `max` failures in the last `windowMs` is locked until the oldest of them leaves the window. Two
// implementations answer the same way: in this process's memory (the embedded SQLite default) and in a
// Postgres table every console replica shares (./postgres-failure-counter.ts).

export type ThrottleLimit = { max: number; windowMs: number };

export type FailureCounter = {
  /** Milliseconds until the key may try again, or 0. */
  retryAfterMs(key: string): Promise<number>;
  fail(key: string): Promise<void>;
  reset(key: string): Promise<void>;
};

/** The wait a key's most recent failures (oldest first, at most `max`) impose, or 0. */
export function lockFromFailures(times: readonly number[], { max, windowMs }: ThrottleLimit, now: number): number {
  return times.length >= max ? Math.max(0, windowMs - (now - times[times.length - max])) : 0;
}

/** One process's count, least recently failed dropped past 10,000 keys (bounded memory). */
export function createMemoryFailureCounter({
  max,
  windowMs,
  now = () => Date.now(),
}: ThrottleLimit & { now?: () => number }): FailureCounter {
  const failures = new Map<string, number[]>();
  const recent = (key: string) => (failures.get(key) ?? []).filter((t) => now() - t < windowMs);
  return {
    async retryAfterMs(key) {
      return lockFromFailures(recent(key), { max, windowMs }, now());
    },
    async fail(key) {
      const times = recent(key);
      times.push(now());
      failures.delete(key); // re-inserted last: the map's order is least recently failed first
      failures.set(key, times.slice(-max));
      if (failures.size > 10_000) failures.delete(failures.keys().next().value!);
    },
    async reset(key) {
      failures.delete(key);
    },
  };
}
