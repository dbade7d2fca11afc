// A signed webhook from an outside system, turned into a run signal (`POST /api/webhooks/:source`).
//
// Body (JSON, strict): { "runId": "run_…", "type": "deploy.finished", "payload": { … }, "timestamp"?: "…" }
//   runId    the run to signal;  type  the signal's type (what a waiting run waits for);
//   payload  anything JSON (default {}), given to the run as the signal's payload;
//   timestamp  optional, when the event happened (Standard Webhooks' recommended field); not used.
// The signal's dedupKey is `webhook:<source>:<webhook-id>`: a webhook delivered any number of times is
// one signal (later deliveries answer "duplicate"); ids of different sources, and the dedupKeys API
// callers choose, cannot collide with it; and the run's trace shows which source delivered it.
//
// In order, so a refused request costs little and writes nothing:
//   unknown source (or none configured) → NOT_FOUND; missing/malformed headers or a timestamp outside
//   the tolerance → UNAUTHENTICATED (before the body is read); a body over TETHER_MAX_BODY_BYTES →
//   PAYLOAD_TOO_LARGE; no matching signature → UNAUTHENTICATED; not JSON, too deep, or not the shape →
//   INVALID_INPUT; a signal type the source may not deliver (TETHER_WEBHOOK_SIGNAL_TYPES) → FORBIDDEN;
//   an unknown run → NOT_FOUND (from the runtime).
import { z } from "zod";
import { BodyRejected, jsonDepthExceeds, MAX_JSON_DEPTH, readBodyBytes } from "@/lib/api/body";
import { AppError, parseInput } from "@/lib/runtime/errors";
import { mayDeliverSignalType, type WebhookConfig } from "./config";
import { checkWebhookSignature, checkWebhookTimestamp, readWebhookHeaders, WebhookSignatureError } from "./signature";

export const webhookSignalSchema = z.strictObject({
  runId: z.string().trim().min(1).max(255),
  type: z.string().trim().min(1).max(100),
  payload: z.unknown().default({}),
  timestamp: z.string().max(100).optional(),
});
export type WebhookSignal = z.infer<typeof webhookSignalSchema>;

type DeliverSignal = (
  runId: string,
  signal: { type: string; dedupKey: string; payload: unknown },
) => Promise<{ signal: { id: string }; duplicate: boolean }>;

export type ReceiveWebhookDeps = {
  config: WebhookConfig;
  /** The runtime's deliverSignal (the same function as POST /api/runs/:id/signals). */
  deliverSignal: DeliverSignal;
  now?: () => Date;
};

export type WebhookReceipt = { outcome: "delivered" | "duplicate"; signalId: string; runId: string };

export async function receiveWebhook(
  deps: ReceiveWebhookDeps,
  input: { source: string; request: Request },
): Promise<WebhookReceipt> {
  const keys = deps.config.sources.get(input.source);
  if (!keys)
    throw new AppError("NOT_FOUND", {
      message: `no webhook source ${JSON.stringify(input.source)}`,
      userMessage: "There is no webhook source by that name.",
    });
  const headers = verified(() => readWebhookHeaders(input.request.headers));
  verified(() =>
    checkWebhookTimestamp(headers.timestamp, (deps.now ?? (() => new Date()))(), deps.config.toleranceSeconds),
  );
  const body = await readRawBody(input.request);
  verified(() => checkWebhookSignature(headers, body, keys));

  const signal = parseSignal(body);
  checkSignalType(deps.config, input.source, signal.type);
  const { signal: delivered, duplicate } = await deps.deliverSignal(signal.runId, {
    type: signal.type,
    dedupKey: `webhook:${input.source}:${headers.id}`,
    payload: signal.payload,
  });
  return { outcome: duplicate ? "duplicate" : "delivered", signalId: delivered.id, runId: signal.runId };
}

/** FORBIDDEN unless the source may deliver this type; the sender is verified, so it may learn its own list. */
function checkSignalType(config: WebhookConfig, source: string, type: string): void {
  if (mayDeliverSignalType(config, source, type)) return;
  const allowance = config.signalTypes.get(source);
  const allowed = allowance instanceof Set ? [...allowance] : [];
  throw new AppError("FORBIDDEN", {
    message: `webhook source ${source} may not deliver signal type ${JSON.stringify(type)}`,
    userMessage:
      allowed.length > 0
        ? `This source may not deliver signals of type ${JSON.stringify(type)}; it may deliver: ${allowed.join(", ")}.`
        : `This source may not deliver any signal type yet: the server's TETHER_WEBHOOK_SIGNAL_TYPES must list the types it may deliver.`,
  });
}

function verified<T>(check: () => T): T {
  try {
    return check();
  } catch (error) {
    if (!(error instanceof WebhookSignatureError)) throw error;
    throw new AppError("UNAUTHENTICATED", { message: `webhook refused: ${error.message}`, userMessage: error.message });
  }
}

async function readRawBody(request: Request): Promise<Uint8Array> {
  try {
    return await readBodyBytes(request);
  } catch (error) {
    if (error instanceof BodyRejected)
      throw new AppError("PAYLOAD_TOO_LARGE", { message: "webhook body too large", userMessage: error.message });
    throw error;
  }
}

function parseSignal(body: Uint8Array): WebhookSignal {
  const text = new TextDecoder().decode(body);
  if (jsonDepthExceeds(text))
    throw new AppError("INVALID_INPUT", {
      message: "webhook body nested too deeply",
      userMessage: `The request body is nested deeper than ${MAX_JSON_DEPTH} levels.`,
    });
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new AppError("INVALID_INPUT", {
      message: "webhook body is not JSON",
      userMessage: "The request body is not valid JSON.",
    });
  }
  return parseInput(
    webhookSignalSchema,
    value,
    "webhook body",
    'The request body must be { "runId", "type", "payload"? }.',
  );
}
