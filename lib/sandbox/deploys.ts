import { z } from "zod";
import type { Db } from "@/lib/db";
import { isAppError } from "@/lib/runtime/errors";
import type { DeployCallback, DeployFinished } from "./callbacks";
import { notFound, sandboxError } from "./errors";
import { newId } from "./ids";
import { recordEffect, type Caller } from "./ledger";

// The deploy system runs database migrations. It is `unsafe` on purpose: no idempotency key and no
// lookup by operation, so a repeated request starts a second migration (and a second ledger row). What
// it does offer, like a real one, is a search of its deploys by migration and by the run that started
// them (`findDeploys`).
// A deploy starts `running` (202) and finishes either on its own — the deploy clock (deploy-clock.ts)
// finishes it `succeeded` once it has run long enough (`finishDueDeploys`) — or when someone (a test,
// an eval, the demo) completes it by hand. Either way completion is a compare-and-set, so a deploy
// finishes once, and is then reported by callback, `deliveries` times at once, like an at-least-once webhook.

export const startDeploySchema = z.strictObject({
  migration: z.string().trim().min(1).max(200),
  runId: z.string().trim().min(1).max(255).optional(),
});
export type StartDeployInput = z.infer<typeof startDeploySchema>;

export const completeDeploySchema = z.strictObject({
  outcome: z.enum(["succeeded", "failed"]),
  deliveries: z.int().min(1).max(10).default(1),
});
export type CompleteDeployInput = z.infer<typeof completeDeploySchema>;

/** A query string: unknown parameters are ignored, as for every sandbox GET; at least one filter. */
export const findDeploysSchema = z
  .object({
    migration: z.string().trim().min(1).max(200).optional(),
    runId: z.string().trim().min(1).max(255).optional(),
  })
  .refine((q) => q.migration !== undefined || q.runId !== undefined, {
    message: "Give a migration, a runId or both.",
    path: ["migration"],
  });
export type FindDeploysInput = z.infer<typeof findDeploysSchema>;

/** The most deploys one search returns (newest first). */
export const FIND_DEPLOYS_LIMIT = 50;

export type Deploy = {
  deployId: string;
  migration: string;
  /** running | succeeded | failed */
  status: string;
  /** The run that started it, when it said (body or X-Tether-Run-Id). */
  runId: string | null;
  startedAt: string;
  completedAt: string | null;
};

type DeployRow = {
  id: string;
  migration: string;
  status: string;
  runId: string | null;
  startedAt: Date;
  completedAt: Date | null;
};

function toDeploy({ id, migration, status, runId, startedAt, completedAt }: DeployRow): Deploy {
  return {
    deployId: id,
    migration,
    status,
    runId,
    startedAt: startedAt.toISOString(),
    completedAt: completedAt?.toISOString() ?? null,
  };
}

/** Starts a migration. The run id comes from the body or, failing that, the X-Tether-Run-Id header. */
export async function startDeploy(
  db: Db,
  input: StartDeployInput & { caller: Caller },
): Promise<{ deployId: string; status: "running" }> {
  const runId = input.runId ?? input.caller.runId;
  const deployId = newId("dep");
  const startedAt = new Date();
  await db.$transaction(async (tx) => {
    await tx.sandboxDeploy.create({
      data: { id: deployId, migration: input.migration, status: "running", runId, startedAt },
    });
    await recordEffect(tx, {
      system: "deploys",
      action: "migrate",
      caller: { runId, operationId: input.caller.operationId },
      data: { deployId, migration: input.migration },
      at: startedAt,
    });
  });
  return { deployId, status: "running" };
}

export async function getDeploy(db: Db, id: string): Promise<Deploy> {
  const row = await db.sandboxDeploy.findUnique({ where: { id } });
  if (!row) throw notFound("deploy", id);
  return toDeploy(row);
}

/** Deploys of a migration and/or started by a run, newest first (at most FIND_DEPLOYS_LIMIT). None is `[]`. */
export async function findDeploys(db: Db, { migration, runId }: FindDeploysInput): Promise<Deploy[]> {
  const rows = await db.sandboxDeploy.findMany({
    where: {
      ...(migration !== undefined ? { migration } : {}),
      ...(runId !== undefined ? { runId } : {}),
    },
    orderBy: [{ startedAt: "desc" }, { id: "desc" }],
    take: FIND_DEPLOYS_LIMIT,
  });
  return rows.map(toDeploy);
}

/**
 * Finishes a running deploy (compare-and-set: a second completion is a 409), then, after the commit,
 * calls the hook `deliveries` times concurrently with the same event. A failing delivery is logged and
 * not retried here; `delivered` counts the ones that returned normally.
 */
export async function completeDeploy(
  db: Db,
  id: string,
  input: CompleteDeployInput,
  onDeployFinished: DeployCallback,
): Promise<Deploy & { delivered: number }> {
  const { count } = await db.sandboxDeploy.updateMany({
    where: { id, status: "running" },
    data: { status: input.outcome, completedAt: new Date() },
  });
  const row = await db.sandboxDeploy.findUnique({ where: { id } });
  if (!row) throw notFound("deploy", id);
  if (count === 0) throw sandboxError("CONFLICT", `Deploy '${id}' already finished (${row.status}).`);
  const event: DeployFinished = {
    deployId: row.id,
    runId: row.runId,
    outcome: input.outcome,
    migration: row.migration,
  };
  const results = await Promise.allSettled(
    Array.from({ length: input.deliveries }, async () => onDeployFinished(event)),
  );
  for (const result of results) {
    if (result.status === "rejected") console.error(`[sandbox] deploy callback for ${id} failed`, result.reason);
  }
  return { ...toDeploy(row), delivered: results.filter((result) => result.status === "fulfilled").length };
}

/** How many due deploys one pass finishes at most; the rest wait for the next pass. */
const FINISH_BATCH = 20;

/**
 * The deploy system's own progress: every deploy still running `finishAfterMs` after it started finishes
 * `succeeded` and calls back once. Its finish time is derived (startedAt + finishAfterMs), so a deploy
 * whose time passed while no process was running finishes at the next pass. Each completion is the same
 * compare-and-set as a manual one: a deploy someone else finished in between is skipped, never reported
 * twice. Returns the ids this pass finished.
 */
export async function finishDueDeploys(
  db: Db,
  opts: { finishAfterMs: number; onDeployFinished: DeployCallback; now?: Date },
): Promise<string[]> {
  const cutoff = new Date((opts.now ?? new Date()).getTime() - opts.finishAfterMs);
  const due = await db.sandboxDeploy.findMany({
    where: { status: "running", startedAt: { lte: cutoff } },
    orderBy: [{ startedAt: "asc" }, { id: "asc" }],
    take: FINISH_BATCH,
    select: { id: true },
  });
  const finished: string[] = [];
  for (const { id } of due) {
    try {
      await completeDeploy(db, id, { outcome: "succeeded", deliveries: 1 }, opts.onDeployFinished);
      finished.push(id);
    } catch (error) {
      // Completed (or reset away) by someone else since the read: theirs is the one completion.
      if (isAppError(error, "CONFLICT") || isAppError(error, "NOT_FOUND")) continue;
      throw error;
    }
  }
  return finished;
}
