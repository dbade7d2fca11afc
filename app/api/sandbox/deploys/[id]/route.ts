import { getDeploy } from "@/lib/sandbox/deploys";
import { handleSandboxRequest, json, pathParams } from "@/lib/sandbox/http";

type Context = { params: Promise<{ id: string }> };

/** GET /api/sandbox/deploys/:id → `{ deployId, migration, status, runId, startedAt, completedAt }`. */
export async function GET(request: Request, { params }: Context) {
  return handleSandboxRequest(request, { system: "deploys" }, async ({ db }) => {
    const { id } = await pathParams(params);
    return json(await getDeploy(db, id));
  });
}
