import { isSandboxEnabled } from "@/lib/auth/mode";
import { getConfig, type Config } from "@/lib/config";
import type { Db } from "@/lib/db";
import type { DeployCallback } from "./callbacks";
import { finishDueDeploys } from "./deploys";
import { areDeploysHeld } from "./faults";

// The deploy system's own clock: a deploy runs for TETHER_SANDBOX_DEPLOY_SECONDS, then finishes
// `succeeded` and calls back, as a real deploy system would, with nobody completing it by hand.
//
// Nothing is scheduled per deploy: each pass finishes every deploy whose derived finish time
// (startedAt + the configured seconds) has passed, so a deploy that came due while no process ran —
// the console restarted — finishes at the first pass of the next one. A pass runs at start and then
// every second. Completion is a compare-and-set (deploys.ts): consoles sharing a database never finish
// a deploy twice, and a deploy completed by hand in the meantime is left alone.
//
// Where it runs: in the console (the process that serves the sandbox), only with the sandbox on
// (`startSandboxDeployClock`, from the composition root). `startSandboxServer` runs none: tests, evals
// and the seed finish deploys themselves (or start a clock of their own with `startDeployClock`). The
// `holdDeploys` knob (faults.ts) pauses it.
//
// The callback goes through the hook (callbacks.ts) once per deploy; a delivery that fails is tried again
// a few times (the receiver deduplicates: for a run, the signal's dedupKey is the deploy id).

export { DEFAULT_DEPLOY_SECONDS } from "@/lib/config";
const DEFAULT_TICK_MS = 1_000;
const DELIVERY_ATTEMPTS = 3;
const DELIVERY_RETRY_MS = 500;

type Logger = { warn: (msg: string, data?: object) => void };
const consoleLogger: Logger = { warn: (msg, data) => console.warn(`[sandbox] ${msg}`, data ?? "") };

/**
 * How long a deploy runs before it finishes on its own, from TETHER_SANDBOX_DEPLOY_SECONDS: seconds
 * (decimals allowed, 0 = at the next pass; default 5), or `off` — deploys then finish only by hand.
 * Any other value stops start-up (lib/config.ts parses it).
 */
export function deployFinishMsFromEnv(config: Config = getConfig()): number | null {
  return config.sandbox.deployFinishMs;
}

export type DeployClockOptions = {
  /** A function is read at every pass (the console's client follows DATABASE_URL). */
  db: Db | (() => Db);
  /** How long a deploy runs before it finishes on its own. */
  finishAfterMs: number;
  onDeployFinished: DeployCallback;
  /** Between passes; default 1 s. */
  tickMs?: number;
  /** Before a failed delivery is tried again (doubling); default 500 ms. */
  retryDelayMs?: number;
  logger?: Logger;
};

export type DeployClock = {
  /** One pass now (or the one under way): the ids of the deploys it finished. */
  tick: () => Promise<string[]>;
  /** No pass after this; resolves once the one under way, if any, is done. */
  stop: () => Promise<void>;
};

export function startDeployClock(opts: DeployClockOptions): DeployClock {
  const logger = opts.logger ?? consoleLogger;
  const db = typeof opts.db === "function" ? opts.db : () => opts.db as Db;
  const deliver = withRetries(opts.onDeployFinished, opts.retryDelayMs ?? DELIVERY_RETRY_MS, logger);
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let inFlight: Promise<string[]> | undefined;

  async function pass(): Promise<string[]> {
    const current = db();
    if (await areDeploysHeld(current)) return [];
    return finishDueDeploys(current, { finishAfterMs: opts.finishAfterMs, onDeployFinished: deliver });
  }
  function tick(): Promise<string[]> {
    inFlight ??= pass().finally(() => {
      inFlight = undefined;
    });
    return inFlight;
  }
  function schedule(ms: number) {
    if (stopped) return;
    timer = setTimeout(async () => {
      try {
        await tick();
      } catch (error) {
        logger.warn("deploy clock: a pass failed; the next one tries again", { error: String(error) });
      }
      schedule(opts.tickMs ?? DEFAULT_TICK_MS);
    }, ms);
    timer.unref?.(); // never what keeps a process alive
  }
  schedule(0); // deploys that came due while nothing ran finish first

  return {
    tick,
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await inFlight?.catch(() => {});
    },
  };
}

/** A delivery that throws is tried again (DELIVERY_ATTEMPTS in all); the last failure is the caller's. */
function withRetries(deliver: DeployCallback, delayMs: number, logger: Logger): DeployCallback {
  return async (event) => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await deliver(event);
      } catch (error) {
        if (attempt >= DELIVERY_ATTEMPTS) throw error;
        logger.warn(`deploy callback for ${event.deployId} failed; trying again`, { attempt, error: String(error) });
        await new Promise((resolve) => setTimeout(resolve, delayMs * 2 ** (attempt - 1)));
      }
    }
  };
}

const CLOCK = Symbol.for("tether.sandbox.deployClock");

/**
 * The console's deploy clock, once per process: only with the sandbox on (TETHER_SANDBOX) and
 * TETHER_SANDBOX_DEPLOY_SECONDS not `off`; null otherwise. On globalThis, so a dev-mode module reload
 * never starts a second one. Reads both variables, so a bad value stops start-up here.
 */
export function startSandboxDeployClock(opts: {
  db: () => Db;
  onDeployFinished: DeployCallback;
  config?: Config;
  logger?: Logger;
}): DeployClock | null {
  const config = opts.config ?? getConfig();
  if (!isSandboxEnabled(config)) return null;
  const finishAfterMs = deployFinishMsFromEnv(config);
  if (finishAfterMs === null) return null;
  const holder = globalThis as { [CLOCK]?: DeployClock };
  holder[CLOCK] ??= startDeployClock({
    db: opts.db,
    finishAfterMs,
    onDeployFinished: opts.onDeployFinished,
    logger: opts.logger,
  });
  return holder[CLOCK];
}
