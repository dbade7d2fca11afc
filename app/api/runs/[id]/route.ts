import { defineRoute } from "@/lib/api/route";
import { presentRun } from "@/lib/api/present";
import { idParams } from "@/lib/api/schemas";
import { deleteRun } from "@/lib/commands/delete-run";

export const dynamic = "force-dynamic";

export const GET = defineRoute({ scope: "runs:read", params: idParams }, async ({ params, runtime }) => {
  const run = await runtime.getRun(params.id);
  return { run: presentRun(run), state: run.state, recovery: await runtime.recoveryView(run.id) };
});

// Deletes a finished run with all its data (and audits who did): an admin's act, not a run writer's.
export const DELETE = defineRoute({ scope: "admin", params: idParams }, async ({ params, principal, db }) => ({
  deleted: await deleteRun(db, { runId: params.id, by: principal.principal }),
}));
