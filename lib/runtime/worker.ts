import { hostname } from "node:os";
import type { EngineContext } from "./context";
import { RunCursor } from "./cursor";
import { isAppError } from "./errors";
import { advance } from "./step";

// A worker claims runnable runs through a lease, heartbeats it, and drives each run until it parks,
// ends, or has taken maxStepsPerClaim steps (then it lets others have a turn).

export type WorkerOptions = {
  owner?: string;
  leaseMs?: number;
  pollMs?: number;
  maxStepsPerClaim?: number;
};

export type Worker = {
  readonly owner: string;
  /** Claim one runnable run and drive it; false when there was nothing to do. */
  runOnce: (opts?: { runId?: string }) => Promise<boolean>;
  /** Keep working until nothing is runnable (tests, scripts). */
  drain: (opts?: { maxClaims?: number }) => Promise<number>;
  start: () => void;
  stop: () => Promise<void>;
};

export function createWorker(ctx: EngineContext, opts: WorkerOptions = {}): Worker {
  const owner = opts.owner ?? `worker-${hostname()}-${process.pid}-${ctx.ids.id("w").slice(-6)}`;
  const leaseMs = opts.leaseMs ?? 30_000;
  const pollMs = opts.pollMs ?? 250;
  const maxStepsPerClaim = opts.maxStepsPerClaim ?? 100;
  let loop: Promise<void> | null = null;
  let running = false;
  let wake: (() => void) | null = null;

  async function runOnce(claimOpts: { runId?: string } = {}): Promise<boolean> {
    const claimed = await ctx.store.claimRun({ owner, now: ctx.clock.now(), leaseMs, runId: claimOpts.runId });
    if (!claimed) return false;
    const cursor = new RunCursor(ctx, claimed.lease, claimed.run);
    const heartbeat = setInterval(() => {
      ctx.store.renewLease(cursor.lease, ctx.clock.now(), leaseMs).then(
        (lease) => (cursor.lease = lease),
        (error) => ctx.logger.warn("lease renewal failed", { runId: cursor.runId, owner, error: String(error) }),
      );
    }, Math.max(50, Math.floor(leaseMs / 3)));
    try {
      for (let i = 0; i < maxStepsPerClaim; i++) {
        if ((await advance(ctx, cursor)) === "released") return true;
      }
      await ctx.store.releaseLease(cursor.lease);
    } catch (error) {
      if (isAppError(error, "LEASE_LOST")) {
        // Fenced out (cancelled, or presumed dead and taken over): nothing we hold may be written.
        ctx.logger.warn("lease lost", { runId: cursor.runId, owner });
      } else if (isAppError(error, "CONFLICT")) {
        // A person decided at the same moment; the run is woken again and re-reads the decision.
        ctx.logger.info("conflict while stepping; run released", { runId: cursor.runId, message: error.message });
        await ctx.store.releaseLease(cursor.lease).catch(() => {});
      } else {
        // Infrastructure failure (database, bug): the last checkpoint stands. The lease is left to
        // expire, so the retry comes after leaseMs instead of in a hot loop.
        ctx.logger.error("step failed", { runId: cursor.runId, owner, error: error instanceof Error ? error.stack : String(error) });
      }
    } finally {
      clearInterval(heartbeat);
    }
    return true;
  }

  return {
    owner,
    runOnce,
    async drain({ maxClaims = 10_000 } = {}) {
      let claims = 0;
      while (claims < maxClaims && (await runOnce())) claims++;
      return claims;
    },
    start() {
      if (running) return;
      running = true;
      loop = (async () => {
        while (running) {
          let worked = false;
          try {
            worked = await runOnce();
          } catch (error) {
            ctx.logger.error("worker loop error", { owner, error: String(error) });
          }
          if (!worked && running) await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, pollMs);
            wake = () => { clearTimeout(timer); resolve(); };
          });
        }
      })();
    },
    async stop() {
      running = false;
      wake?.();
      await loop;
    },
  };
}
