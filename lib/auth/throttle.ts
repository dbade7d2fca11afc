// Failed sign-ins per account, in memory (per process): after `max` failures within `windowMs` the
// account is locked for the rest of the window. Slows password guessing; resets on success.
export function createThrottle({ max, windowMs, now = () => Date.now() }: { max: number; windowMs: number; now?: () => number }) {
  const failures = new Map<string, number[]>();
  const recent = (key: string) => (failures.get(key) ?? []).filter((t) => now() - t < windowMs);
  return {
    /** Milliseconds until the key may try again, or 0. */
    retryAfterMs(key: string): number {
      const times = recent(key);
      return times.length >= max ? windowMs - (now() - times[0]) : 0;
    },
    fail(key: string): void {
      const times = recent(key);
      times.push(now());
      failures.set(key, times.slice(-max));
      if (failures.size > 10_000) failures.delete(failures.keys().next().value!); // bounded memory
    },
    reset(key: string): void {
      failures.delete(key);
    },
  };
}

const globalForThrottle = globalThis as unknown as { tetherSignInThrottle?: ReturnType<typeof createThrottle> };
/** The process-wide throttle for password sign-ins: 10 failures in 15 minutes lock an email. */
export const signInThrottle = (globalForThrottle.tetherSignInThrottle ??= createThrottle({ max: 10, windowMs: 15 * 60_000 }));
