// The Standard Webhooks signature scheme (https://www.standardwebhooks.com, symmetric "v1"):
//   webhook-id         the message's id, the same on every retry (we de-duplicate on it)
//   webhook-timestamp  when this attempt was sent, in whole Unix seconds
//   webhook-signature  space-separated "v1,<base64 HMAC-SHA256>" entries (several while keys rotate)
// signed content: `${id}.${timestamp}.${raw body}`, keyed with the base64-decoded part of `whsec_…`.
// Verification reads the raw bytes as received (never re-serialized JSON), compares in constant time,
// and refuses a timestamp further from our clock than the tolerance, either way (replays, clock games).
import { createHmac, timingSafeEqual } from "node:crypto";

export type WebhookHeaders = { id: string; timestamp: number; signatures: string[] };

/** Why a webhook is refused (each becomes a 401 with this message). */
export class WebhookSignatureError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "WebhookSignatureError";
  }
}

// Visible ASCII, no "." (the signed content's separator), short enough for a signal's dedupKey.
const ID = /^[\x21-\x2d\x2f-\x7e]{1,150}$/;
const TIMESTAMP = /^\d{1,12}$/;

/** The three headers, well-formed; throws WebhookSignatureError naming what is missing or malformed. */
export function readWebhookHeaders(headers: Headers): WebhookHeaders {
  const id = headers.get("webhook-id")?.trim();
  const timestamp = headers.get("webhook-timestamp")?.trim();
  const signature = headers.get("webhook-signature")?.trim();
  const missing = [!id && "webhook-id", !timestamp && "webhook-timestamp", !signature && "webhook-signature"].filter(
    Boolean,
  );
  if (missing.length > 0)
    throw new WebhookSignatureError(`Missing ${missing.join(", ")} header${missing.length > 1 ? "s" : ""}.`);
  if (!ID.test(id!))
    throw new WebhookSignatureError('The webhook-id header must be 1 to 150 visible ASCII characters without ".".');
  if (!TIMESTAMP.test(timestamp!))
    throw new WebhookSignatureError("The webhook-timestamp header must be whole Unix seconds.");
  const signatures = signature!
    .split(/\s+/)
    .filter((s) => s.startsWith("v1,"))
    .map((s) => s.slice(3));
  if (signatures.length === 0)
    throw new WebhookSignatureError('The webhook-signature header has no "v1,<base64>" signature.');
  return { id: id!, timestamp: Number(timestamp), signatures };
}

/** Throws when the attempt's timestamp is further than `toleranceSeconds` from now, either way. */
export function checkWebhookTimestamp(timestamp: number, now: Date, toleranceSeconds: number): void {
  if (Math.abs(Math.floor(now.getTime() / 1000) - timestamp) > toleranceSeconds) {
    throw new WebhookSignatureError(
      `The webhook-timestamp is more than ${toleranceSeconds} seconds from the server's clock.`,
    );
  }
}

function hmac(key: Buffer, id: string, timestamp: number, body: Uint8Array): Buffer {
  return createHmac("sha256", key).update(`${id}.${timestamp}.`).update(body).digest();
}

/** Throws unless one of the signatures is the HMAC of the content under one of the keys. */
export function checkWebhookSignature(headers: WebhookHeaders, body: Uint8Array, keys: readonly Buffer[]): void {
  const candidates = headers.signatures.map((s) => Buffer.from(s, "base64"));
  for (const key of keys) {
    const expected = hmac(key, headers.id, headers.timestamp, body);
    for (const candidate of candidates) {
      if (candidate.length === expected.length && timingSafeEqual(candidate, expected)) return;
    }
  }
  throw new WebhookSignatureError("No webhook-signature matches the request.");
}

/** The webhook-signature value a sender puts on `body` (for senders, scripts and tests). */
export function signWebhook(key: Buffer, id: string, timestamp: number, body: string | Uint8Array): string {
  const bytes = typeof body === "string" ? new TextEncoder().encode(body) : body;
  return `v1,${hmac(key, id, timestamp, bytes).toString("base64")}`;
}
