import { completeDeploy, completeDeploySchema } from "@/lib/sandbox/deploys";
import { handleSandboxRequest, json, parseBody, pathParams } from "@/lib/sandbox/http";

type Context = { params: Promise<{ id: string }> };

/**
 * POST /api/sandbox/deploys/:id/complete `{ outcome, deliveries? }` → 200 deploy + `delivered`, after the
 * completion callback ran `deliveries` times. A control route (tests, evals, demo): no fault knobs.
 */
export async function POST(request: Request, { params }: Context) {
  return handleSandboxRequest(request, {}, async ({ db, onDeployFinished }) => {
    const { id } = await pathParams(params);
    const input = await parseBody(request, completeDeploySchema);
    return json(await completeDeploy(db, id, input, onDeployFinished));
  });
}
