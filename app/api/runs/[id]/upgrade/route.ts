import { defineRoute, tokenActor } from "@/lib/api/route";
import { presentRun } from "@/lib/api/present";
import { idParams } from "@/lib/api/schemas";

export const dynamic = "force-dynamic";

/** A run stopped because its agent's deployed version changed: continue it on the deployed version (409 when it already runs it). */
export const POST = defineRoute({ scope: "runs:write", params: idParams }, async ({ params, principal, runtime }) => ({
  run: presentRun(await runtime.upgradeRun({ runId: params.id, ...tokenActor(principal) })),
}));
