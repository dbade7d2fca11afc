// Graceful shutdown on SIGTERM/SIGINT for the console and `npm run worker`: drain (stop claiming, let the
// steps in hand commit, give their runs back), then exit — all within TETHER_SHUTDOWN_MS.
//
// The console runs inside `next start` (or the standalone server.js), which has its own SIGTERM handler:
// it closes the HTTP server, then calls process.exit(143) — usually long before a step in flight has
// committed. Next offers no hook into that sequence (NEXT_MANUAL_SIG_HANDLE only turns it off, HTTP
// server close and all), so while a drain runs, process.exit is deferred until the drain ends; Next's own
// handling still decides the exit code and still ends the process. A process without another handler
// (`npm run worker`, or a console with NEXT_MANUAL_SIG_HANDLE) exits by itself once drained. Whatever
// happens, the process is gone when the budget is spent.
import type { Logger } from "@/lib/runtime";

/** What to do before exiting; `graceMs` is how long the steps in hand may take to commit. */
export type Drain = (budget: { graceMs: number }) => Promise<void>;

export type GracefulShutdown = {
  /** True from the first signal on: readiness answers 503 so load balancers stop sending work. */
  readonly isShuttingDown: boolean;
  /** Resolves when the drain has ended (for tests and the exit path). */
  readonly drained: Promise<void>;
};

type Signal = "SIGTERM" | "SIGINT";
/** The part of `process` this module uses: tests pass their own. */
export type ShutdownProcess = Pick<NodeJS.Process, "once" | "listeners" | "exit">;

export type ShutdownOptions = {
  /** Who is stopping, for the log ("console", "worker <owner>"). */
  name: string;
  drain: Drain;
  /** TETHER_SHUTDOWN_MS: from the signal to the exit, whatever the drain is doing. */
  shutdownMs: number;
  logger: Logger;
  signals?: Signal[];
  proc?: ShutdownProcess;
};

const EXIT_CODES: Record<Signal, number> = { SIGTERM: 143, SIGINT: 130 };

/** Part of the budget kept for what follows the steps: releasing leases, stopping the outboxes, flushing traces. */
export const graceFor = (shutdownMs: number) => Math.max(0, shutdownMs - Math.min(2_000, Math.floor(shutdownMs / 5)));

export function installGracefulShutdown(opts: ShutdownOptions): GracefulShutdown {
  const { name, drain, shutdownMs, logger, signals = ["SIGTERM", "SIGINT"], proc = process } = opts;
  let isShuttingDown = false;
  let markDrained!: () => void;
  const drained = new Promise<void>((resolve) => {
    markDrained = resolve;
  });

  function onSignal(signal: Signal) {
    if (isShuttingDown) return;
    isShuttingDown = true;
    const started = Date.now();
    const exit = proc.exit.bind(proc);
    logger.info(`${name} draining on ${signal}`, { shutdownMs });

    // Another handler's exit (Next's) waits for the drain; the deadline below still ends the process.
    let isDrained = false;
    let requestedExit: number | undefined;
    proc.exit = ((code?: number) => {
      if (isDrained) return exit(code);
      requestedExit = code ?? 0;
      return undefined as never;
    }) as typeof proc.exit;

    const deadline = setTimeout(() => {
      logger.warn(
        `${name} did not drain within ${shutdownMs} ms; exiting (runs still mid-step keep their lease until it expires)`,
      );
      exit(requestedExit ?? EXIT_CODES[signal]);
    }, shutdownMs);

    void drain({ graceMs: graceFor(shutdownMs) })
      .catch((error: unknown) =>
        logger.error(`${name} drain failed`, { error: error instanceof Error ? error.message : String(error) }),
      )
      .then(() => {
        isDrained = true;
        markDrained();
        logger.info(`${name} drained`, { ms: Date.now() - started });
        if (requestedExit !== undefined) {
          clearTimeout(deadline);
          return exit(requestedExit);
        }
        // Alone with this signal: exit now. Otherwise the other handler (Next closing its HTTP server)
        // exits when it is done, or the deadline does.
        const others = proc.listeners(signal).filter((listener) => listener !== handlers[signal]);
        if (others.length === 0) {
          clearTimeout(deadline);
          exit(0);
        }
      });
  }

  const handlers = Object.fromEntries(signals.map((signal) => [signal, () => onSignal(signal)])) as Record<
    Signal,
    () => void
  >;
  for (const signal of signals) proc.once(signal, handlers[signal]);
  return {
    get isShuttingDown() {
      return isShuttingDown;
    },
    drained,
  };
}
