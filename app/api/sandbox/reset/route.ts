import { handleSandboxRequest, json } from "@/lib/sandbox/http";
import { resetSandbox } from "@/lib/sandbox/seed";

/** POST /api/sandbox/reset → empties the world (ledger and fault knobs too) and seeds the starting one. */
export async function POST(request: Request) {
  return handleSandboxRequest(request, {}, async ({ db }) => {
    await resetSandbox(db);
    return json({ ok: true });
  });
}
