"use server";
// Server actions of an operator on a run (scope runs:operate). Each calls one runtime operation — the
// same ones the HTTP API and the CLI use — and the engine's compare-and-set decides races. The engine writes
// the audit row of a cancel, resume, upgrade, retry or fork in the run's transaction (byHandler).
import { z } from "zod";
import { defineAction } from "@/lib/actions/define-action";
import { upgradeAgentVersion } from "@/lib/commands/upgrade-agent-version";
import type { RunRecord } from "@/lib/runtime";
import { getRuntime } from "@/lib/runtime.server";

const runId = z.string().trim().min(1, "Which run?").max(200);
const reason = z
  .string()
  .trim()
  .max(500)
  .optional()
  .transform((v) => v || undefined);

/**
 * An operator's action on one run: the runtime operation (by the signed-in person), then the run's pages
 * revalidated; it answers the run's id and new status. The engine writes the audit row (byHandler).
 */
function runOperation<S extends z.ZodType<{ runId: string }>>(
  schema: S,
  action: string,
  operate: (input: z.output<S>, by: string) => Promise<Pick<RunRecord, "id" | "status">>,
) {
  return defineAction(
    { schema, scope: "runs:operate", audit: { action, byHandler: true } },
    async (input, { user, revalidatePath }) => {
      const run = await operate(input, user.email);
      revalidatePath(`/runs/${run.id}`);
      revalidatePath("/runs");
      return { runId: run.id, status: run.status };
    },
  );
}

const withReason = z.object({ runId, reason });
const runOnly = z.object({ runId });

export const cancelRunAction = runOperation(withReason, "runs.cancel", ({ runId, reason }, by) =>
  getRuntime().cancelRun({ runId, by, reason }),
);
export const resumeRunAction = runOperation(runOnly, "runs.resume", ({ runId }, by) =>
  getRuntime().resumeRun({ runId, by }),
);
export const upgradeRunAction = runOperation(runOnly, "runs.upgrade", ({ runId }, by) =>
  getRuntime().upgradeRun({ runId, by }),
);
export const retryRunAction = runOperation(withReason, "runs.retry", ({ runId, reason }, by) =>
  getRuntime().retryRun({ runId, by, reason }),
);

const upgradeVersionSchema = z.object({
  slug: z.string().trim().min(1).max(64),
  version: z.string().trim().min(1).max(64),
});
/** Every run of one agent version to the newest; the command writes the action's audit row, the engine each run's. */
export const upgradeVersionAction = defineAction(
  { schema: upgradeVersionSchema, scope: "runs:operate", audit: { action: "agents.upgrade_version", byHandler: true } },
  async ({ slug, version }, { user, db, revalidatePath }) => {
    const result = await upgradeAgentVersion(
      { db, runtime: getRuntime() },
      { slug, version, by: user.email, via: "console" },
    );
    revalidatePath("/admin/agents");
    revalidatePath("/runs");
    return { to: result.to, upgraded: result.upgraded.length, skipped: result.skipped };
  },
);

const forkRunSchema = z.object({ runId, checkpointSeq: z.coerce.number().int().min(1, "Choose a checkpoint.") });
export const forkRunAction = defineAction(
  {
    schema: forkRunSchema,
    scope: "runs:operate",
    audit: { action: "runs.fork", byHandler: true }, // forkRun audits in the new run's transaction
  },
  async ({ runId, checkpointSeq }, { user, revalidatePath }) => {
    const fork = await getRuntime().forkRun({ runId, checkpointSeq, startedBy: user.email });
    revalidatePath("/runs");
    return { runId: fork.id, status: fork.status };
  },
);
