import { handleSandboxRequest, json, parseBody } from "@/lib/sandbox/http";
import { createOrder, createOrderSchema } from "@/lib/sandbox/orders";

/**
 * POST /api/sandbox/orders `{ amountCents, id?, customerEmail?, customerName?, currency?, cardLast4? }`
 * → 201 the new paid order (409 `conflict` when the id exists). A control route: tests, evals and the
 * e2e specs set up the world with it; no fault knobs, no ledger row.
 */
export async function POST(request: Request) {
  return handleSandboxRequest(request, {}, async ({ db }) => json(await createOrder(db, await parseBody(request, createOrderSchema)), 201));
}
