import { findDeploys, findDeploysSchema, startDeploy, startDeploySchema } from "@/lib/sandbox/deploys";
import { handleSandboxRequest, json, parseBody, parseQuery, readCaller } from "@/lib/sandbox/http";

/** GET /api/sandbox/deploys?migration=…&runId=… (one or both) → `{ deploys }` newest first; none is `[]`. */
export async function GET(request: Request) {
  return handleSandboxRequest(request, { system: "deploys" }, async ({ db }) => {
    return json({ deploys: await findDeploys(db, parseQuery(request, findDeploysSchema)) });
  });
}

/** POST /api/sandbox/deploys `{ migration, runId? }` → 202 `{ deployId, status: "running" }`. Unsafe. */
export async function POST(request: Request) {
  return handleSandboxRequest(request, { system: "deploys", effect: true }, async ({ db }) => {
    const input = await parseBody(request, startDeploySchema);
    return json(await startDeploy(db, { ...input, caller: readCaller(request) }), 202);
  });
}
