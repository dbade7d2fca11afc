// Slack's request signing: X-Slack-Signature is "v0=" + hex HMAC-SHA256(signing secret, "v0:<timestamp>:<raw
// body>"), X-Slack-Request-Timestamp whole Unix seconds. A timestamp more than five minutes from our clock
// (either way) is refused, so a captured request cannot be replayed later; the comparison is constant-time
// and made over the raw body as received.
import { createHmac, timingSafeEqual } from "node:crypto";
import { AppError } from "@/lib/runtime/errors";

export const SLACK_TOLERANCE_SECONDS = 5 * 60;

export const slackSignature = (secret: string, timestamp: string, rawBody: string) =>
  `v0=${createHmac("sha256", secret).update(`v0:${timestamp}:${rawBody}`).digest("hex")}`;

const unauthenticated = (message: string) =>
  new AppError("UNAUTHENTICATED", { message: `slack request: ${message}`, userMessage: message });

/** Throws UNAUTHENTICATED unless the request is signed with `secret` within the time window. */
export function verifySlackRequest(headers: Headers, rawBody: string, secret: string | null, now: Date): void {
  if (!secret) throw unauthenticated("Slack interactivity is not configured (TETHER_SLACK_SIGNING_SECRET).");
  const timestamp = headers.get("x-slack-request-timestamp")?.trim() ?? "";
  const signature = headers.get("x-slack-signature")?.trim() ?? "";
  if (!/^\d{1,12}$/.test(timestamp) || !signature)
    throw unauthenticated("Missing or malformed X-Slack-Request-Timestamp or X-Slack-Signature.");
  if (Math.abs(Math.floor(now.getTime() / 1000) - Number(timestamp)) > SLACK_TOLERANCE_SECONDS)
    throw unauthenticated("The request timestamp is outside the five-minute window.");
  const expected = Buffer.from(slackSignature(secret, timestamp, rawBody));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected))
    throw unauthenticated("The Slack signature does not match.");
}
