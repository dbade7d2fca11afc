import { startDeploy, startDeploySchema } from "@/lib/sandbox/deploys";
import { handleSandboxRequest, json, parseBody, readCaller } from "@/lib/sandbox/http";

/** POST /api/sandbox/deploys `{ migration, runId? }` → 202 `{ deployId, status: "running" }`. Unsafe. */
export async function POST(request: Request) {
  return handleSandboxRequest(request, { system: "deploys", effect: true }, async ({ db }) => {
    const input = await parseBody(request, startDeploySchema);
    return json(await startDeploy(db, { ...input, caller: readCaller(request) }), 202);
  });
}
