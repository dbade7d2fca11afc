import { getConfig, type Config } from "@/lib/config";
import type { Db } from "@/lib/db";
import { withKeyLock } from "@/lib/limits/queue-lock";
import { AppError } from "@/lib/runtime/errors";

// A cap on the runs an agent may have waiting for a worker (QUEUED), so one script in a loop cannot
// bury every other agent's work: past it, POST /api/runs answers 429 until workers catch up.
// TETHER_MAX_QUEUED_RUNS (per agent; default 10,000) or "off". The count and the start that follows it
// hold the agent's queue lock (lib/limits/queue-lock.ts), so starts racing on several console replicas
// cannot together pass the cap.

export function queuedRunCapFromEnv(config: Config = getConfig()): number | null {
  return config.server.maxQueuedRuns;
}

/** RATE_LIMITED when the agent already has `cap` queued runs (the (status, createdAt) index counts them). */
export async function assertRoomInQueue(
  db: Db,
  agent: string,
  cap: number | null = queuedRunCapFromEnv(),
): Promise<void> {
  if (cap === null) return;
  const queued = await db.run.count({ where: { status: "QUEUED", agentSlug: agent } });
  if (queued >= cap) {
    throw new AppError("RATE_LIMITED", {
      message: `agent ${agent} has ${queued} queued runs (cap ${cap})`,
      userMessage: `${agent} already has ${queued} runs waiting for a worker (the cap is ${cap}): try again when they have started.`,
      retryAfterSeconds: 5,
    });
  }
}

/** Starts a run (`start`) only when the agent's queue has room, counted and started under the agent's queue lock. */
export async function withRoomInQueue<T>(
  db: Db,
  agent: string,
  start: () => Promise<T>,
  cap: number | null = queuedRunCapFromEnv(),
): Promise<T> {
  if (cap === null) return start();
  return withKeyLock(db, `queued-runs:${agent}`, async () => {
    await assertRoomInQueue(db, agent, cap);
    return start();
  });
}
