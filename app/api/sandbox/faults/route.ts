import { findFaults } from "@/lib/sandbox/faults";
import { handleSandboxRequest, json } from "@/lib/sandbox/http";

/** GET /api/sandbox/faults → `{ faults }`: the knobs of every system (defaults where none were set). */
export async function GET(request: Request) {
  return handleSandboxRequest(request, {}, async ({ db }) => json({ faults: await findFaults(db) }));
}
