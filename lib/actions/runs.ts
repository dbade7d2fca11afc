"use server";
// Server actions of an operator on a run (scope runs:operate). Each calls one runtime operation — the
// same ones the HTTP API and the CLI use — and the engine's compare-and-set decides races. The engine writes
// the audit row of a cancel, resume, upgrade, retry or fork in the run's transaction (byHandler).
import { z } from "zod";
import { defineAction } from "@/lib/actions/define-action";
import { upgradeAgentVersion } from "@/lib/commands/upgrade-agent-version";
import { getRuntime } from "@/lib/runtime.server";

const runId = z.string().trim().min(1, "Which run?").max(200);
const reason = z
  .string()
  .trim()
  .max(500)
  .optional()
  .transform((v) => v || undefined);

type Revalidate = (path: string) => void;
function revalidateRun(revalidatePath: Revalidate, id: string) {
  revalidatePath(`/runs/${id}`);
  revalidatePath("/runs");
}

const cancelRunSchema = z.object({ runId, reason });
export const cancelRunAction = defineAction(
  { schema: cancelRunSchema, scope: "runs:operate", audit: { action: "runs.cancel", byHandler: true } },
  async ({ runId, reason }, { user, revalidatePath }) => {
    const run = await getRuntime().cancelRun({ runId, by: user.email, reason });
    revalidateRun(revalidatePath, run.id);
    return { runId: run.id, status: run.status };
  },
);

const resumeRunSchema = z.object({ runId });
export const resumeRunAction = defineAction(
  { schema: resumeRunSchema, scope: "runs:operate", audit: { action: "runs.resume", byHandler: true } },
  async ({ runId }, { user, revalidatePath }) => {
    const run = await getRuntime().resumeRun({ runId, by: user.email });
    revalidateRun(revalidatePath, run.id);
    return { runId: run.id, status: run.status };
  },
);

export const upgradeRunAction = defineAction(
  { schema: resumeRunSchema, scope: "runs:operate", audit: { action: "runs.upgrade", byHandler: true } },
  async ({ runId }, { user, revalidatePath }) => {
    const run = await getRuntime().upgradeRun({ runId, by: user.email });
    revalidateRun(revalidatePath, run.id);
    return { runId: run.id, status: run.status };
  },
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

const retryRunSchema = z.object({ runId, reason });
export const retryRunAction = defineAction(
  { schema: retryRunSchema, scope: "runs:operate", audit: { action: "runs.retry", byHandler: true } },
  async ({ runId, reason }, { user, revalidatePath }) => {
    const run = await getRuntime().retryRun({ runId, by: user.email, reason });
    revalidateRun(revalidatePath, run.id);
    return { runId: run.id, status: run.status };
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
