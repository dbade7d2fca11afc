import { withRoomInQueue } from "@/lib/api/queued-runs";
import type { Db } from "@/lib/db";
import { AppError } from "@/lib/runtime/errors";
import type { Runtime, StartRunInput } from "@/lib/runtime";

// Starting a run, the one way every adapter does it (POST /api/runs, the MCP server, the open gates,
// the LangGraph and A2A surfaces): a known idempotency key returns its run even when the agent's queue
// is full; otherwise the queued-runs cap is checked before the engine writes the run, under a lock on
// the agent's queue that every console replica on the database takes.

export type StartRunCommand = Omit<StartRunInput, "startedBy"> & { startedBy: string };

export async function startRun(
  deps: { db: Db; runtime: Runtime },
  command: StartRunCommand,
  opts: { internal?: boolean } = {},
) {
  // An internal agent (the open gate's) is started only by its own command (request-gate.ts), never by hand.
  if (!opts.internal && deps.runtime.context.agents.get(command.agent)?.internal) {
    throw new AppError("INVALID_INPUT", {
      message: `agent ${command.agent} is internal`,
      userMessage: `"${command.agent}" runs are started through their own API (open gates: POST /api/gates).`,
      fieldErrors: { agent: ["This agent is not started by hand."] },
    });
  }
  const known = command.idempotencyKey
    ? await deps.db.run.findFirst({ where: { idempotencyKey: command.idempotencyKey }, select: { id: true } }) // within the active workspace
    : null;
  if (known) return deps.runtime.startRun(command);
  return withRoomInQueue(deps.db, command.agent, () => deps.runtime.startRun(command));
}
