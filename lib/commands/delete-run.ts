// Deleting a finished run with all its data, on request (a data-subject request, a run started by
// mistake): checkpoints, trace events, effect intents, decision packets with their approvals and signals
// go with the Run row (onDelete: Cascade in prisma/models.prisma). Its child runs (Run.spawnedByRunId,
// lib/runtime/children.ts) go with it, and theirs: a child's data is part of the parent's work. What stays:
// the audit log, which gains a row per deleted run saying who deleted it, in the same transaction; runs
// forked from it (their parentRunId then names a run that no longer exists); and the sandbox world's own records.
import { writeAudit } from "@/lib/audit/audit-log";
import type { Db } from "@/lib/db";
import { AppError } from "@/lib/runtime/errors";
import { TERMINAL_STATUSES, type RunStatus } from "@/lib/runtime/types";

export type DeleteRunOptions = { runId: string; by: string };
type Counts = { checkpoints: number; events: number; intents: number; packets: number; signals: number };
export type DeletedRun = {
  id: string;
  agentSlug: string;
  status: string;
  deleted: Counts;
  /** Its child runs (and theirs) deleted with it. */
  children: string[];
};

type Tx = Parameters<Parameters<Db["$transaction"]>[0]>[0];

const isTerminal = (status: string) => TERMINAL_STATUSES.includes(status as RunStatus);
const runSelect = {
  id: true,
  agentSlug: true,
  agentVersion: true,
  status: true,
  createdAt: true,
  startedBy: true,
  spawnedByRunId: true,
} as const;

export async function deleteRun(db: Db, opts: DeleteRunOptions): Promise<DeletedRun> {
  return db.$transaction(async (tx) => {
    const run = await tx.run.findUnique({ where: { id: opts.runId }, select: runSelect });
    if (!run)
      throw new AppError("NOT_FOUND", {
        message: `run ${opts.runId} not found`,
        userMessage: "That run does not exist.",
      });
    if (!isTerminal(run.status)) throw notFinished(run.id, run.status);
    const descendants = await descendantsOf(tx, run.id);
    const going = descendants.find((d) => !isTerminal(d.status));
    if (going) throw childNotFinished(run.id, going.id, going.status);
    // Children first, each compare-and-set on its status and audited; then the run itself.
    for (const child of [...descendants].reverse()) await deleteOne(tx, child, { by: opts.by, cascadedFrom: run.id });
    const children = descendants.map((d) => d.id);
    const deleted = await deleteOne(tx, run, { by: opts.by, children });
    return { id: run.id, agentSlug: run.agentSlug, status: run.status, deleted, children };
  });
}

type RunHead = {
  id: string;
  agentSlug: string;
  agentVersion: string;
  status: string;
  createdAt: Date;
  startedBy: string | null;
  spawnedByRunId: string | null;
};

/** Every run started by this one's steps, and by theirs, parents before their children. */
async function descendantsOf(tx: Tx, runId: string): Promise<RunHead[]> {
  const found: RunHead[] = [];
  for (let level = [runId]; level.length > 0;) {
    const children = await tx.run.findMany({
      where: { spawnedByRunId: { in: level } },
      select: runSelect,
      orderBy: { createdAt: "asc" },
    });
    found.push(...children);
    level = children.map((c) => c.id);
  }
  return found;
}

async function deleteOne(
  tx: Tx,
  run: RunHead,
  note: { by: string; cascadedFrom?: string; children?: string[] },
): Promise<Counts> {
  const where = { runId: run.id };
  const deleted = {
    checkpoints: await tx.checkpoint.count({ where }),
    events: await tx.traceEvent.count({ where }),
    intents: await tx.effectIntent.count({ where }),
    packets: await tx.decisionPacket.count({ where }),
    signals: await tx.signal.count({ where }),
  };
  // Compare-and-set on the status: a run retried since the read above is not deleted.
  const { count } = await tx.run.deleteMany({ where: { id: run.id, status: { in: [...TERMINAL_STATUSES] } } });
  if (count === 0) throw notFinished(run.id, "changed");
  await writeAudit(tx, {
    actor: note.by,
    action: "runs.delete",
    target: run.id,
    data: {
      agent: run.agentSlug,
      version: run.agentVersion,
      status: run.status,
      startedBy: run.startedBy,
      createdAt: run.createdAt.toISOString(),
      deleted,
      ...(run.spawnedByRunId ? { spawnedByRunId: run.spawnedByRunId } : {}),
      ...(note.cascadedFrom ? { cascadedFrom: note.cascadedFrom } : {}),
      ...(note.children?.length ? { children: note.children } : {}),
    },
  });
  return deleted;
}

function notFinished(runId: string, status: string) {
  return new AppError("CONFLICT", {
    message: `run ${runId} is ${status}, not finished`,
    userMessage: "Only a finished run (completed, failed or cancelled) can be deleted. Cancel it first.",
  });
}

function childNotFinished(runId: string, childId: string, status: string) {
  return new AppError("CONFLICT", {
    message: `run ${runId} has a child run ${childId} that is ${status}`,
    userMessage: "A run this run started is still going. Cancel the run (its children are cancelled with it) first.",
  });
}
