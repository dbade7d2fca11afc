// Notifications' names and settings: the events a queue's channel may ask for, the kinds of channel,
// and what the dispatcher reads from the environment (docs/notifications.md).
//   TETHER_PUBLIC_URL   where people open the console (links in notifications); default http://127.0.0.1:$PORT
//   TETHER_SMTP_URL     smtp://user:pass@host:port (smtps:// for TLS from the start); email channels need it
//   TETHER_NOTIFY_FROM  the From address of notification email; default tether@<the console's host>
import { getConfig, type Config } from "@/lib/config";

export const NOTIFICATION_EVENTS = [
  "packet.opened",
  "packet.escalated",
  "packet.expiring",
  "run.needs_attention",
] as const;
export type NotificationEvent = (typeof NOTIFICATION_EVENTS)[number];

export const CHANNEL_KINDS = ["webhook", "slack", "email"] as const;
export type ChannelKind = (typeof CHANNEL_KINDS)[number];

export type DeliveryStatus = "pending" | "delivered" | "failed";

/** The console's address for people: TETHER_PUBLIC_URL, else this machine's port, without a trailing "/". */
export function publicBaseUrl(config: Config = getConfig()): string {
  return config.server.publicUrl;
}

/** Where a packet opens in the console. */
export const packetLink = (baseUrl: string, packetId: string) => `${baseUrl}/inbox/${encodeURIComponent(packetId)}`;

export type SmtpSettings = { url: string; from: string };

/**
 * TETHER_SMTP_URL and TETHER_NOTIFY_FROM (default tether@<the host of baseUrl>, or tether@localhost for an IP
 * address); null when no SMTP server is configured (email deliveries then fail, recorded).
 */
export function smtpSettingsFromEnv(
  config: Config = getConfig(),
  baseUrl = publicBaseUrl(config),
): SmtpSettings | null {
  const { smtpUrl: url, from } = config.notifications;
  if (!url) return null;
  const host = new URL(baseUrl).hostname;
  return { url, from: from || `tether@${/^[\d.]+$|^\[/.test(host) ? "localhost" : host}` };
}
