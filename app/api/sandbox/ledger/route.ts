import { z } from "zod";
import { handleSandboxRequest, json, parseQuery } from "@/lib/sandbox/http";
import { findLedgerEntries } from "@/lib/sandbox/ledger";

const ledgerQuerySchema = z.object({
  runId: z.string().min(1).optional(),
  operationId: z.string().min(1).optional(),
  system: z.string().min(1).optional(),
});

/** GET /api/sandbox/ledger?runId=&operationId=&system= → `{ entries }`, every effect applied, oldest first. */
export async function GET(request: Request) {
  return handleSandboxRequest(request, {}, async ({ db }) => {
    return json({ entries: await findLedgerEntries(db, parseQuery(request, ledgerQuerySchema)) });
  });
}
