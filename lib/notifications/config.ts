// Notifications' names and settings: the events a queue's channel may ask for, the kinds of channel,
// and what the dispatcher reads from the environment (docs/notifications.md).
//   TETHER_PUBLIC_URL   where people open the console (links in notifications); default http://127.0.0.1:$PORT
//   TETHER_SMTP_URL     smtp://user:pass@host:port (smtps:// for TLS from the start); email channels need it
//   TETHER_NOTIFY_FROM  the From address of notification email; default tether@<the console's host>
import type { Env } from "@/lib/auth/mode";

export const NOTIFICATION_EVENTS = ["packet.opened", "packet.escalated", "packet.expiring", "run.needs_attention"] as const;
export type NotificationEvent = (typeof NOTIFICATION_EVENTS)[number];

export const CHANNEL_KINDS = ["webhook", "slack", "email"] as const;
export type ChannelKind = (typeof CHANNEL_KINDS)[number];

export type DeliveryStatus = "pending" | "delivered" | "failed";

/** The console's address for people: TETHER_PUBLIC_URL, else this machine's port, without a trailing "/". */
export function publicBaseUrl(env: Env = process.env): string {
  const configured = env.TETHER_PUBLIC_URL?.trim();
  return (configured || `http://127.0.0.1:${env.PORT?.trim() || 3000}`).replace(/\/+$/, "");
}

/** Where a packet opens in the console. */
export const packetLink = (baseUrl: string, packetId: string) => `${baseUrl}/inbox/${encodeURIComponent(packetId)}`;

export type SmtpSettings = { url: string; from: string };

/** TETHER_SMTP_URL and TETHER_NOTIFY_FROM; null when no SMTP server is configured (email deliveries then fail, recorded). */
export function smtpSettingsFromEnv(env: Env = process.env, baseUrl = publicBaseUrl(env)): SmtpSettings | null {
  const url = env.TETHER_SMTP_URL?.trim();
  if (!url) return null;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error("TETHER_SMTP_URL must be a URL such as smtp://user:pass@mail.example.com:587");
  }
  if (parsed.protocol !== "smtp:" && parsed.protocol !== "smtps:") throw new Error("TETHER_SMTP_URL must start with smtp:// or smtps://");
  const host = new URL(baseUrl).hostname;
  const from = env.TETHER_NOTIFY_FROM?.trim() || `tether@${/^[\d.]+$|^\[/.test(host) ? "localhost" : host}`;
  return { url, from };
}
