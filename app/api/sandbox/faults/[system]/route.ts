import { SandboxError } from "@/lib/sandbox/errors";
import { putFault, putFaultSchema, SANDBOX_SYSTEMS, sandboxSystemSchema } from "@/lib/sandbox/faults";
import { handleSandboxRequest, json, parseBody, pathParams } from "@/lib/sandbox/http";

type Context = { params: Promise<{ system: string }> };

/** PUT /api/sandbox/faults/:system `{ latencyMs?, errorRate?, timeoutAfterApply?, holdMs? }` → the knob. */
export async function PUT(request: Request, { params }: Context) {
  return handleSandboxRequest(request, {}, async ({ db }) => {
    const { system } = await pathParams(params);
    const parsed = sandboxSystemSchema.safeParse(system);
    if (!parsed.success) throw new SandboxError("not_found", `No such system: '${system}' (one of ${SANDBOX_SYSTEMS.join(", ")}).`);
    return json(await putFault(db, parsed.data, await parseBody(request, putFaultSchema)));
  });
}
