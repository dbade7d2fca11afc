import { handleSandboxRequest, json, parseBody, readCaller, requireIdempotencyKey } from "@/lib/sandbox/http";
import { chargePayment, paymentRequestSchema } from "@/lib/sandbox/payments";

/**
 * POST /api/sandbox/payments/charges `{ orderId, amountCents }` + Idempotency-Key → 200 receipt.
 * A replay of the same key answers the stored response with `Idempotent-Replayed: true`.
 */
export async function POST(request: Request) {
  return handleSandboxRequest(request, { system: "payments", effect: true }, async ({ db }) => {
    const idempotencyKey = requireIdempotencyKey(request);
    const input = await parseBody(request, paymentRequestSchema);
    const { receipt, replayed } = await chargePayment(db, { ...input, idempotencyKey, caller: readCaller(request) });
    return json(receipt, 200, replayed ? { "Idempotent-Replayed": "true" } : undefined);
  });
}
