import { asSystem, inWorkspace } from "./workspace";
import { hostname } from "node:os";
import type { EngineContext } from "./context";
import { RunCursor } from "./cursor";
import { isAppError } from "./errors";
import { forgetPermissions } from "./permission-check";
import { advance } from "./step";
import type { Claim, Wakeup } from "./store";

// A worker drives many runs at once: agent runs spend their time waiting on models, tools and people,
// so one run at a time would leave the process idle. It claims runnable runs in batches, up to
// `concurrency` in flight, each under its own lease (fencing is per run, exactly as with one), renews
// all its leases with one heartbeat, and drives each run until it parks, ends, or has taken
// maxStepsPerClaim steps (then gives it back so that others get a turn).
// It learns that a run became runnable from the store's wake-ups (this process's changes at once,
// other processes' by LISTEN/NOTIFY on Postgres) and from a timer set for the next run due; polling
// every pollMs is only the fallback.

export type WorkerOptions = {
  owner?: string;
  leaseMs?: number;
  /** The fallback poll, for a wake-up that never came (a dropped LISTEN connection). */
  pollMs?: number;
  maxStepsPerClaim?: number;
  /** Runs in flight at once (TETHER_WORKER_CONCURRENCY); claims stop while this many are held. */
  concurrency?: number;
};

export type Worker = {
  readonly owner: string;
  /** Runs this worker holds right now. */
  readonly inFlight: number;
  /** Claim one runnable run (or the named one) and drive it; false when there was nothing to do. */
  runOnce: (opts?: { runId?: string }) => Promise<boolean>;
  /** Keep working, `concurrency` runs at a time, until nothing is runnable (tests, scripts, benchmarks). */
  drain: (opts?: { maxClaims?: number }) => Promise<number>;
  start: () => void;
  /** Stop claiming; each run in hand finishes its step and is given back. Past graceMs, the
   *  leases of runs still mid-step are left to expire (their steps can no longer act: see RunCursor.assertHeld). */
  stop: (opts?: { graceMs?: number }) => Promise<void>;
};

export const DEFAULT_CONCURRENCY = 64;
const MAX_TIMER_MS = 2 ** 31 - 1; // setTimeout's limit; a later timer is set again when this one fires

export function createWorker(ctx: EngineContext, opts: WorkerOptions = {}): Worker {
  const owner = opts.owner ?? `worker-${hostname()}-${process.pid}-${ctx.ids.id("w").slice(-6)}`;
  const leaseMs = opts.leaseMs ?? 30_000;
  const pollMs = opts.pollMs ?? 1_000;
  const maxStepsPerClaim = opts.maxStepsPerClaim ?? 100;
  const concurrency = Math.max(1, Math.floor(opts.concurrency ?? DEFAULT_CONCURRENCY));
  const { store, logger } = ctx;

  const held = new Map<string, RunCursor>();
  const driving = new Set<Promise<void>>();
  let drivesEnded = 0; // counts runs given back (or let go), so a claim can tell whether one ended while it asked
  let stopping = false;

  // ---- one heartbeat for every lease held

  let heartbeat: ReturnType<typeof setInterval> | null = null;
  let beating = false;
  async function beat() {
    if (beating || held.size === 0) return;
    beating = true;
    const cursors = [...held.values()];
    try {
      const renewed = new Map(
        (
          await store.renewLeases(
            owner,
            cursors.map((c) => c.lease),
            ctx.clock.now(),
            leaseMs,
          )
        ).map((l) => [l.runId, l]),
      );
      for (const cursor of cursors) {
        const lease = renewed.get(cursor.runId);
        if (lease && lease.epoch === cursor.lease.epoch) cursor.lease = lease;
        else if (held.get(cursor.runId) === cursor) cursor.markLost(); // cancelled, or taken over after we stalled
      }
    } catch (error) {
      // The leases keep their old expiry; past it the runs stop acting on their own (assertHeld).
      logger.warn("lease renewal failed", { owner, runs: cursors.length, error: String(error) });
    } finally {
      beating = false;
    }
  }
  function hold(cursor: RunCursor) {
    held.set(cursor.runId, cursor);
    heartbeat ??= setInterval(() => void beat(), Math.max(50, Math.floor(leaseMs / 3)));
  }
  function letGo(cursor: RunCursor) {
    if (held.get(cursor.runId) === cursor) held.delete(cursor.runId);
    if (held.size === 0 && heartbeat) {
      clearInterval(heartbeat);
      heartbeat = null;
    }
  }

  // ---- driving one run

  async function drive(claim: Claim): Promise<void> {
    const cursor = new RunCursor(ctx, claim.lease, claim.run, leaseMs);
    hold(cursor);
    try {
      for (let i = 0; i < maxStepsPerClaim && !stopping; i++) {
        if ((await advance(ctx, cursor)) === "released") return;
      }
      await cursor.release(); // a turn for others, or a graceful stop
    } catch (error) {
      if (isAppError(error, "LEASE_LOST")) {
        // Fenced out (cancelled, or presumed dead and taken over): nothing we hold may be written.
        logger.warn("lease lost", { runId: cursor.runId, owner });
      } else if (isAppError(error, "CONFLICT") || isAppError(error, "PERMISSIONS_CHANGED")) {
        // A person decided, or the permissions changed, at the same moment: nothing of the step was
        // written; the run is given back and its next claim reads the decision or the rules afresh.
        logger.info("conflict while stepping; run released", {
          runId: cursor.runId,
          code: error.code,
          message: error.message,
        });
        if (error.code === "PERMISSIONS_CHANGED") forgetPermissions(ctx, cursor.run.workspaceId, cursor.run.agentSlug);
        await store.releaseLease(cursor.lease).catch(() => {});
      } else {
        // Infrastructure failure (database, bug): the last checkpoint stands. The lease is left to
        // expire, so the retry comes after leaseMs instead of in a hot loop.
        logger.error("step failed", {
          runId: cursor.runId,
          owner,
          error: error instanceof Error ? error.stack : String(error),
        });
      }
    } finally {
      letGo(cursor);
      drivesEnded++;
    }
  }

  function launch(claim: Claim) {
    // A run is driven in its own workspace: what its step reads (rules, tools, queues) is that workspace's.
    const driven: Promise<void> = inWorkspace(claim.run.workspaceId, () => drive(claim)).finally(() => {
      driving.delete(driven);
      wake?.(); // a slot is free
    });
    driving.add(driven);
  }

  async function claimBatch(limit: number, now: Date): Promise<number> {
    // Never a second driver for a run this worker still drives: a lease that lapsed under load (a
    // stalled event loop, a failed heartbeat) makes the run claimable, and a second drive would call
    // its tool again while the first call may still be in flight. Other workers may take it over;
    // they treat that call as in doubt.
    const claims = await store.claimRuns({ owner, now, leaseMs, limit, exclude: [...held.keys()] });
    claims.forEach(launch);
    return claims.length;
  }

  // ---- the long-running loop: claim while there is room and work, else sleep until woken

  let loop: Promise<void> | null = null;
  let wake: (() => void) | null = null;
  let maybeRunnable = true; // a wake-up came (or a claim filled every slot): claim before sleeping
  let nextPoll = Date.now() + pollMs;
  let timer: { handle: ReturnType<typeof setTimeout>; at: number } | null = null;

  const poke = () => {
    maybeRunnable = true;
    wake?.();
  };
  /** A run comes due at `at`: wake then, however far away (the poll is only a fallback). */
  function wakeAt(at: Date) {
    const delay = at.getTime() - ctx.clock.now().getTime();
    if (delay <= 0) return poke();
    if (timer && timer.at <= at.getTime()) return;
    if (timer) clearTimeout(timer.handle);
    timer = {
      at: at.getTime(),
      handle: setTimeout(
        () => {
          timer = null;
          poke();
        },
        Math.min(delay, MAX_TIMER_MS),
      ),
    };
  }
  const onWakeup = (w: Wakeup) => (w.at ? wakeAt(w.at) : poke());
  let claimFailures = 0;
  const retryDelay = () => Math.min(pollMs, 50 * 2 ** Math.min(claimFailures, 6));

  async function work() {
    const unsubscribe = store.onRunnable(onWakeup);
    try {
      while (!stopping) {
        const free = concurrency - held.size;
        if (maybeRunnable && free > 0) {
          maybeRunnable = false;
          try {
            // One instant for both questions: a run that comes due between the claim and the look
            // ahead (a timer that fired a hair early) is the next one, and wakes us at once.
            const now = ctx.clock.now();
            const claimed = await claimBatch(free, now);
            if (claimed === free)
              maybeRunnable = true; // there may be more than we had room for
            else {
              const next = await store.nextRunnableAt({ owner, after: now });
              if (next) wakeAt(next);
            }
            claimFailures = 0;
          } catch (error) {
            // The database is unreachable or busy: try again soon (not at the next poll, which may be far).
            claimFailures++;
            logger.error("claim failed", { owner, error: String(error), retryInMs: retryDelay() });
            wakeAt(new Date(ctx.clock.now().getTime() + retryDelay()));
          }
          if (maybeRunnable && concurrency - held.size > 0) continue;
        }
        if (stopping) break;
        // The poll's deadline is absolute: runs given back often (each wakes this sleep) must not
        // keep pushing it away.
        await new Promise<void>((resolve) => {
          const poll = setTimeout(
            () => {
              maybeRunnable = true;
              nextPoll = Date.now() + pollMs;
              wake = null;
              resolve();
            },
            Math.max(0, nextPoll - Date.now()),
          );
          wake = () => {
            clearTimeout(poll);
            wake = null;
            resolve();
          };
        });
      }
    } finally {
      unsubscribe();
      if (timer) clearTimeout(timer.handle);
      timer = null;
    }
  }

  return {
    owner,
    get inFlight() {
      return held.size;
    },

    async runOnce(claimOpts: { runId?: string } = {}) {
      const claim = await store.claimRun({ owner, now: ctx.clock.now(), leaseMs, runId: claimOpts.runId });
      if (!claim) return false;
      await drive(claim);
      return true;
    },

    async drain({ maxClaims = 10_000 } = {}) {
      let claims = 0;
      for (;;) {
        const room = Math.min(concurrency - held.size, maxClaims - claims);
        if (room > 0) {
          // A claim that found nothing proves nothing runnable only if no run was given back while
          // it was asked: its snapshot may predate that release (or the release held the row
          // locked, which the claim skips), so the run would be left behind with drain returned.
          const endedBefore = drivesEnded;
          const claimed = await claimBatch(room, ctx.clock.now());
          claims += claimed;
          if (claimed > 0 || drivesEnded !== endedBefore) continue;
        }
        if (driving.size === 0) return claims;
        await Promise.race(driving); // a slot frees, or a run parked and another may have woken
      }
    },

    start() {
      if (loop) return;
      stopping = false;
      loop = asSystem(work); // the claim loop works across workspaces
    },

    async stop({ graceMs = 30_000 } = {}) {
      stopping = true;
      wake?.();
      await loop;
      loop = null;
      let grace: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        Promise.allSettled([...driving]),
        new Promise<void>((resolve) => {
          grace = setTimeout(resolve, graceMs);
        }),
      ]);
      clearTimeout(grace);
      if (heartbeat) clearInterval(heartbeat);
      heartbeat = null;
    },
  };
}
