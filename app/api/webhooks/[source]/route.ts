import { errorResponse } from "@/lib/api/route";
import { getConfig } from "@/lib/config";
import { getRuntime } from "@/lib/runtime.server";
import { receiveWebhook } from "@/lib/webhooks/receive-webhook";

export const dynamic = "force-dynamic";

type Context = { params: Promise<{ source: string }> };

/**
 * POST /api/webhooks/:source — a Standard Webhooks–signed call from an outside system (secrets:
 * TETHER_WEBHOOK_SECRETS) becomes a run signal. 202 `{ outcome: "delivered", signalId, runId }`; 200
 * `{ outcome: "duplicate", … }` when that webhook-id was delivered before; 400 bad JSON or shape; 401
 * missing headers, stale timestamp or no valid signature; 403 a signal type the source may not deliver
 * (TETHER_WEBHOOK_SIGNAL_TYPES); 404 unknown source or run; 413 too large.
 */
export async function POST(request: Request, { params }: Context) {
  try {
    const { source } = await params;
    const receipt = await receiveWebhook(
      { config: getConfig().webhooks, deliverSignal: (runId, signal) => getRuntime().deliverSignal(runId, signal) },
      { source, request },
    );
    return Response.json(receipt, { status: receipt.outcome === "delivered" ? 202 : 200 });
  } catch (error) {
    return errorResponse(error);
  }
}
