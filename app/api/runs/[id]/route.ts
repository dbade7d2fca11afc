import { defineRoute } from "@/lib/api/route";
import { presentRun } from "@/lib/api/present";
import { idParams } from "@/lib/api/schemas";

export const dynamic = "force-dynamic";

export const GET = defineRoute({ scope: "runs:read", params: idParams }, async ({ params, runtime }) => {
  const run = await runtime.getRun(params.id);
  return { run: presentRun(run), state: run.state, recovery: await runtime.recoveryView(run.id) };
});
