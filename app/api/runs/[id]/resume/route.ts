import { defineRoute, tokenActor } from "@/lib/api/route";
import { presentRun } from "@/lib/api/present";
import { idParams } from "@/lib/api/schemas";

export const dynamic = "force-dynamic";

export const POST = defineRoute({ scope: "runs:write", params: idParams }, async ({ params, principal, runtime }) => ({
  run: presentRun(await runtime.resumeRun({ runId: params.id, ...tokenActor(principal) })),
}));
