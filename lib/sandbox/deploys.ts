import { z } from "zod";
import type { Db } from "@/lib/db";
import type { DeployCallback, DeployFinished } from "./callbacks";
import { notFound, SandboxError } from "./errors";
import { newId } from "./ids";
import { recordEffect, type Caller } from "./ledger";

// The deploy system runs database migrations. It is `unsafe` on purpose: no idempotency key and no
// lookup by operation, so a repeated request starts a second migration (and a second ledger row).
// A deploy starts `running` (202) and finishes when someone — a test, an eval, the demo — completes it;
// completion is then reported by callback, `deliveries` times at once, like an at-least-once webhook.

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

export type Deploy = {
  deployId: string;
  migration: string;
  /** running | succeeded | failed */
  status: string;
  startedAt: string;
  completedAt: string | null;
};

type DeployRow = { id: string; migration: string; status: string; startedAt: Date; completedAt: Date | null };

function toDeploy(row: DeployRow): Deploy {
  return {
    deployId: row.id,
    migration: row.migration,
    status: row.status,
    startedAt: row.startedAt.toISOString(),
    completedAt: row.completedAt?.toISOString() ?? null,
  };
}

/** Starts a migration. The run id comes from the body or, failing that, the X-Tether-Run-Id header. */
export async function startDeploy(db: Db, input: StartDeployInput & { caller: Caller }): Promise<{ deployId: string; status: "running" }> {
  const runId = input.runId ?? input.caller.runId;
  const deployId = newId("dep");
  const startedAt = new Date();
  await db.$transaction(async (tx) => {
    await tx.sandboxDeploy.create({ data: { id: deployId, migration: input.migration, status: "running", runId, startedAt } });
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

/**
 * Finishes a running deploy (compare-and-set: a second completion is a 409), then, after the commit,
 * calls the hook `deliveries` times concurrently with the same event. A failing delivery is logged and
 * not retried; `delivered` counts the ones that returned normally.
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
  if (count === 0) throw new SandboxError("conflict", `Deploy '${id}' already finished (${row.status}).`);
  const event: DeployFinished = { deployId: row.id, runId: row.runId, outcome: input.outcome, migration: row.migration };
  const results = await Promise.allSettled(Array.from({ length: input.deliveries }, async () => onDeployFinished(event)));
  for (const result of results) {
    if (result.status === "rejected") console.error(`[sandbox] deploy callback for ${id} failed`, result.reason);
  }
  return { ...toDeploy(row), delivered: results.filter((result) => result.status === "fulfilled").length };
}
