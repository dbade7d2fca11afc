import { defineRoute, tokenActor } from "@/lib/api/route";
import { presentRun } from "@/lib/api/present";
import { cancelBody, idParams } from "@/lib/api/schemas";

export const dynamic = "force-dynamic";

export const POST = defineRoute(
  { scope: "runs:write", params: idParams, body: cancelBody },
  async ({ params, body, principal, runtime }) => ({
    run: presentRun(
      await runtime.cancelRun({
        runId: params.id,
        ...tokenActor(principal),
        reason: body.reason,
      }),
    ),
  }),
);
