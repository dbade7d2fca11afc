import nodemailer from "nodemailer";
import { egressFetch, findEgressRefusal, type EgressPolicy } from "@/lib/tools/registered/egress";
import { SLACK_ACTIONS } from "@/lib/slack/config";
import { decodeWebhookSecret } from "@/lib/webhooks/config";
import { signWebhook } from "@/lib/webhooks/signature";
import type { RecipientLinks } from "@/lib/decision-links/links-for-recipient";
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
  /** An email recipient's own decision links when they may decide the packet (lib/decision-links); none without it. */
  decisionLinks?: (email: string, packetId: string) => Promise<RecipientLinks | null>;
};

const TITLES: Record<NotificationEvent, string> = {
  "packet.opened": "Decision needed",
  "packet.escalated": "Escalated",
  "packet.expiring": "About to expire",
  "run.needs_attention": "A run needs attention",
};

const failed = (error: string, isRetryable = true): SendResult => ({
  ok: false,
  error: error.slice(0, 500),
  isRetryable,
});

export function createSender(opts: SenderOptions): Sender {
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const now = opts.now ?? (() => new Date());
  const fetch = egressFetch(opts.egress);
  let mailer: nodemailer.Transporter | null = null;

  async function post(url: string, body: string, headers: Record<string, string>): Promise<SendResult> {
    try {
      const res = await fetch(url, {
        method: "POST",
        body,
        headers: { "content-type": "application/json", "user-agent": "Tether-Notifications", ...headers },
        signal: AbortSignal.timeout(timeoutMs),
      });
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
    mailer ??= nodemailer.createTransport({
      url: opts.smtp.url,
      connectionTimeout: timeoutMs,
      greetingTimeout: timeoutMs,
      socketTimeout: timeoutMs,
    });
    const payload = JSON.parse(delivery.payload) as NotificationPayload;
    try {
      const links = opts.decisionLinks ? await opts.decisionLinks(channel.target, payload.data.packetId) : null;
      const message = emailMessage(payload, links);
      await mailer.sendMail({
        from: opts.smtp.from,
        to: channel.target,
        messageId: `<${delivery.id}@tether>`,
        headers: { "X-Tether-Delivery": delivery.id },
        ...message,
      });
      return { ok: true };
    } catch (error) {
      return failed(describe(error));
    }
  }

  return {
    async send(channel, delivery) {
      if (channel.kind === "webhook") return sendWebhook(channel, delivery);
      if (channel.kind === "slack")
        return post(
          channel.target,
          JSON.stringify(slackMessage(JSON.parse(delivery.payload) as NotificationPayload)),
          {},
        );
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
  const cause =
    error.cause instanceof Error ? `: ${(error.cause as NodeJS.ErrnoException).code ?? error.cause.message}` : "";
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

type SlackButton = {
  type: "button";
  text: { type: "plain_text"; text: string };
  action_id: string;
  style?: "primary" | "danger";
  value?: string;
  url?: string;
};

/**
 * A Slack incoming-webhook message: text (also the notification's fallback) and the same in blocks, with
 * buttons. Approve and Reject carry the packet id and its action digest; Slack sends the click to the
 * app's Interactivity Request URL (POST /api/slack/interactions, lib/slack), which decides as the person
 * who clicked. A run that needs attention gets only Open: its choices need a person looking at the system.
 */
export function slackMessage(payload: NotificationPayload) {
  const text = `*${slackEscape(headline(payload))}*: ${slackEscape(payload.data.impact)} <${payload.data.link}|Open the packet>`;
  const value = JSON.stringify({ packetId: payload.data.packetId, digest: payload.data.digest });
  const button = (label: string, extra: Omit<SlackButton, "type" | "text">): SlackButton => ({
    type: "button",
    text: { type: "plain_text", text: label },
    ...extra,
  });
  const decide =
    payload.type !== "run.needs_attention" && payload.data.digest
      ? [
          button("Approve", { action_id: SLACK_ACTIONS.approve, style: "primary", value }),
          button("Reject", { action_id: SLACK_ACTIONS.reject, style: "danger", value }),
        ]
      : [];
  return {
    text,
    blocks: [
      { type: "section", text: { type: "mrkdwn", text } },
      { type: "context", elements: [{ type: "mrkdwn", text: slackEscape(details(payload)) }] },
      {
        type: "actions",
        block_id: "tether_decision",
        elements: [...decide, button("Open", { action_id: SLACK_ACTIONS.open, url: payload.data.link })],
      },
    ],
  };
}

/** The email; with the recipient's decision links when they may decide (each link opens a page that asks to confirm). */
export function emailMessage(
  payload: NotificationPayload,
  links?: RecipientLinks | null,
): { subject: string; text: string } {
  const oneLine = (s: string) => s.replace(/\s+/g, " ").trim();
  const subject = oneLine(`[Tether] ${headline(payload)}: ${payload.data.impact}`).slice(0, 200);
  const decide = links
    ? [
        "Decide without signing in (this link is yours alone, works once, and expires in 24 hours):",
        ...(links.approve ? [`Approve: ${links.approve}`] : []),
        ...(links.reject ? [`Reject: ${links.reject}`] : []),
        ...(links.approve ? [] : [`Decide: ${links.decide}`]),
        "",
      ]
    : [];
  const text = [
    `${headline(payload)}.`,
    "",
    payload.data.impact,
    details(payload),
    "",
    ...decide,
    `Open the packet: ${payload.data.link}`,
    "",
  ].join("\n");
  return { subject, text };
}
