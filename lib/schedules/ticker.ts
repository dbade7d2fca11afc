import type { Logger } from "@/lib/runtime";
import { fireDueSchedules, type FireDeps } from "./fire-schedules";

// The schedule ticker every worker runs beside its run loop: every `intervalMs` it fires what is due
// (fire-schedules.ts). One pass at a time per process; a failed pass is logged and the next one tries
// again. Its timer does not keep the process alive.

export const DEFAULT_TICK_MS = 1000;

export type ScheduleTicker = { stop(): Promise<void>; runOnce(): Promise<void> };

export function startScheduleTicker(deps: FireDeps & { intervalMs?: number; logger: Logger }): ScheduleTicker {
  let running: Promise<void> | null = null;
  let stopped = false;
  const runOnce = () => {
    if (stopped) return Promise.resolve();
    running ??= fireDueSchedules(deps)
      .then(
        () => undefined,
        (error: unknown) =>
          deps.logger.error("schedules: pass failed", {
            error: error instanceof Error ? error.message : String(error),
          }),
      )
      .finally(() => {
        running = null;
      });
    return running;
  };
  const timer = setInterval(() => void runOnce(), deps.intervalMs ?? DEFAULT_TICK_MS);
  timer.unref();
  return {
    runOnce,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
