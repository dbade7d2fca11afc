import nodemailer from "nodemailer";
import { egressFetch, findEgressRefusal, type EgressPolicy } from "@/lib/tools/registered/egress";
import { decodeWebhookSecret } from "@/lib/webhooks/config";
import { signWebhook } from "@/lib/webhooks/signature";
import type { NotificationEvent, SmtpSettings } from "./config";
import type { NotificationPayload } from "./events";

// The three ways out: a Standard Webhooks POST (signed with the channel's secret; webhook-id is the
// delivery's id, the same on every attempt, so a receiver de-duplicates), a Slack incoming-webhook
// message ({text, blocks}), and an email over SMTP. Webhooks and Slack go through the egress policy of
// registered tools. Every send has a deadline; a failure is returned, never thrown.

export type SendChannel = { kind: string; target: string; secret: string | null };
export type SendDelivery = { id: string; payload: string };
export type SendResult = { ok: true } | { ok: false; error: string; isRetryable: boolean };

export type Sender = { send(channel: SendChannel, delivery: SendDelivery): Promise<SendResult>; close(): void };

export type SenderOptions = {
  smtp: SmtpSettings | null;
  egress?: EgressPolicy;
  /** The deadline of one attempt; default 10 s. */
  timeoutMs?: number;
  now?: () => Date;
};

const TITLES: Record<NotificationEvent, string> = {
  "packet.opened": "Decision needed",
  "packet.escalated": "Escalated",
  "packet.expiring": "About to expire",
  "run.needs_attention": "A run needs attention",
};

const failed = (error: string, isRetryable = true): SendResult => ({ ok: false, error: error.slice(0, 500), isRetryable });

export function createSender(opts: SenderOptions): Sender {
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const now = opts.now ?? (() => new Date());
  const fetch = egressFetch(opts.egress);
  let mailer: nodemailer.Transporter | null = null;

  async function post(url: string, body: string, headers: Record<string, string>): Promise<SendResult> {
    try {
      const res = await fetch(url, { method: "POST", body, headers: { "content-type": "application/json", "user-agent": "Tether-Notifications", ...headers }, signal: AbortSignal.timeout(timeoutMs) });
      await res.body?.cancel().catch(() => {});
      return res.ok ? { ok: true } : failed(`HTTP ${res.status}`);
    } catch (error) {
      const refusal = findEgressRefusal(error);
      if (refusal) return failed(refusal.message, false);
      return failed(describe(error));
    }
  }

  async function sendWebhook(channel: SendChannel, delivery: SendDelivery): Promise<SendResult> {
    const key = channel.secret ? decodeWebhookSecret(channel.secret) : null;
    if (!key) return failed("the channel has no valid signing secret", false);
    const timestamp = Math.floor(now().getTime() / 1000);
    return post(channel.target, delivery.payload, {
      "webhook-id": delivery.id,
      "webhook-timestamp": String(timestamp),
      "webhook-signature": signWebhook(key, delivery.id, timestamp, delivery.payload),
    });
  }

  async function sendEmail(channel: SendChannel, delivery: SendDelivery): Promise<SendResult> {
    if (!opts.smtp) return failed("no SMTP server is configured (TETHER_SMTP_URL)");
    mailer ??= nodemailer.createTransport({ url: opts.smtp.url, connectionTimeout: timeoutMs, greetingTimeout: timeoutMs, socketTimeout: timeoutMs });
    const message = emailMessage(JSON.parse(delivery.payload) as NotificationPayload);
    try {
      await mailer.sendMail({ from: opts.smtp.from, to: channel.target, messageId: `<${delivery.id}@tether>`, headers: { "X-Tether-Delivery": delivery.id }, ...message });
      return { ok: true };
    } catch (error) {
      return failed(describe(error));
    }
  }

  return {
    async send(channel, delivery) {
      if (channel.kind === "webhook") return sendWebhook(channel, delivery);
      if (channel.kind === "slack") return post(channel.target, JSON.stringify(slackMessage(JSON.parse(delivery.payload) as NotificationPayload)), {});
      if (channel.kind === "email") return sendEmail(channel, delivery);
      return failed(`unknown channel kind ${channel.kind}`, false);
    },
    close() {
      mailer?.close();
      mailer = null;
    },
  };
}

/** An error as one line without a stack: fetch's "fetch failed" names its cause. */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  if (error.name === "TimeoutError" || error.name === "AbortError") return "timed out";
  const cause = error.cause instanceof Error ? `: ${(error.cause as NodeJS.ErrnoException).code ?? error.cause.message}` : "";
  return `${error.message}${cause}`;
}

function headline(payload: NotificationPayload): string {
  const { queue, escalatedFrom } = payload.data;
  if (payload.type === "packet.escalated") return `Escalated from ${escalatedFrom ?? "another queue"} to ${queue}`;
  return `${TITLES[payload.type]} in ${queue}`;
}

function details(payload: NotificationPayload): string {
  const { tool, requestedBy, expiresAt } = payload.data;
  return [`${tool}, asked by ${requestedBy}`, expiresAt ? `expires ${expiresAt}` : null].filter(Boolean).join(" · ");
}

/** Slack's mrkdwn treats &, < and > as control characters. */
const slackEscape = (text: string) => text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");

/** A Slack incoming-webhook message: text (also the notification's fallback) and the same in blocks. */
export function slackMessage(payload: NotificationPayload) {
  const text = `*${slackEscape(headline(payload))}*: ${slackEscape(payload.data.impact)} <${payload.data.link}|Open the packet>`;
  return {
    text,
    blocks: [
      { type: "section", text: { type: "mrkdwn", text } },
      { type: "context", elements: [{ type: "mrkdwn", text: slackEscape(details(payload)) }] },
    ],
  };
}

export function emailMessage(payload: NotificationPayload): { subject: string; text: string } {
  const oneLine = (s: string) => s.replace(/\s+/g, " ").trim();
  const subject = oneLine(`[Tether] ${headline(payload)}: ${payload.data.impact}`).slice(0, 200);
  const text = [`${headline(payload)}.`, "", payload.data.impact, details(payload), "", `Open the packet: ${payload.data.link}`, ""].join("\n");
  return { subject, text };
}
