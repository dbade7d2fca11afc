// Deleting a finished run with all its data, on request (a data-subject request, a run started by
// mistake): checkpoints, trace events, effect intents, decision packets with their approvals and signals
// go with the Run row (onDelete: Cascade in prisma/models.prisma). What stays: the audit log, which gains
// a row saying who deleted which run, in the same transaction; runs forked from it (their parentRunId
// then names a run that no longer exists); and the sandbox world's own records.
import { writeAudit } from "@/lib/audit/audit-log";
import type { Db } from "@/lib/db";
import { AppError } from "@/lib/runtime/errors";
import { TERMINAL_STATUSES, type RunStatus } from "@/lib/runtime/types";

export type DeleteRunOptions = { runId: string; by: string };
export type DeletedRun = {
  id: string;
  agentSlug: string;
  status: string;
  deleted: { checkpoints: number; events: number; intents: number; packets: number; signals: number };
};

const isTerminal = (status: string) => TERMINAL_STATUSES.includes(status as RunStatus);

export async function deleteRun(db: Db, opts: DeleteRunOptions): Promise<DeletedRun> {
  return db.$transaction(async (tx) => {
    const run = await tx.run.findUnique({ where: { id: opts.runId }, select: { id: true, agentSlug: true, agentVersion: true, status: true, createdAt: true, startedBy: true } });
    if (!run) throw new AppError("NOT_FOUND", { message: `run ${opts.runId} not found`, userMessage: "That run does not exist." });
    if (!isTerminal(run.status)) throw notFinished(run.id, run.status);
    const where = { runId: run.id };
    const [checkpoints, events, intents, packets, signals] = [
      await tx.checkpoint.count({ where }), await tx.traceEvent.count({ where }), await tx.effectIntent.count({ where }),
      await tx.decisionPacket.count({ where }), await tx.signal.count({ where }),
    ];
    // Compare-and-set on the status: a run retried since the read above is not deleted.
    const { count } = await tx.run.deleteMany({ where: { id: run.id, status: { in: [...TERMINAL_STATUSES] } } });
    if (count === 0) throw notFinished(run.id, "changed");
    const deleted = { checkpoints, events, intents, packets, signals };
    await writeAudit(tx, {
      actor: opts.by,
      action: "runs.delete",
      target: run.id,
      data: { agent: run.agentSlug, version: run.agentVersion, status: run.status, startedBy: run.startedBy, createdAt: run.createdAt.toISOString(), deleted },
    });
    return { id: run.id, agentSlug: run.agentSlug, status: run.status, deleted };
  });
}

function notFinished(runId: string, status: string) {
  return new AppError("CONFLICT", {
    message: `run ${runId} is ${status}, not finished`,
    userMessage: "Only a finished run (completed, failed or cancelled) can be deleted. Cancel it first.",
  });
}
