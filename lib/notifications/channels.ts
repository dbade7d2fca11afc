import { randomBytes } from "node:crypto";
import { z } from "zod";
import type { Db } from "@/lib/db";
import { queueNameSchema } from "@/lib/inbox/queue-deciders";
import { newRecordId } from "@/lib/runtime/record-id";
import { AppError, parseInput } from "@/lib/runtime/errors";
import { literalEgressRefusal } from "@/lib/tools/registered/egress";
import { decodeWebhookSecret } from "@/lib/webhooks/config";
import { CHANNEL_KINDS, NOTIFICATION_EVENTS, type ChannelKind, type NotificationEvent } from "./config";

// A queue's notification channels: who is told, how, about which events. An admin adds one (a webhook
// gets a signing secret, shown once) and removes one (it is disabled: its deliveries stay on record).
// URLs pass the egress policy of registered tools: a loopback or private address is refused here
// unless TETHER_TOOL_ALLOWED_HOSTS lists it, and checked again (resolved) at every send.

type ChannelDb = Pick<Db, "notificationChannel">;

export const createChannelSchema = z
  .object({
    queue: queueNameSchema,
    kind: z.enum(CHANNEL_KINDS, { error: `The kind is one of ${CHANNEL_KINDS.join(", ")}.` }),
    target: z.string({ error: "Give the target: a URL, or an email address for email." }).trim().min(1).max(2000),
    events: z
      .array(z.enum(NOTIFICATION_EVENTS))
      .min(1)
      .max(NOTIFICATION_EVENTS.length)
      .default([...NOTIFICATION_EVENTS]),
    /** webhook only: a whsec_ secret of your own; one is generated when left out. */
    secret: z.string().trim().optional(),
  })
  .strict()
  .superRefine((input, ctx) => {
    const issue = (path: string, message: string) => ctx.addIssue({ code: "custom", path: [path], message });
    if (input.kind === "email") {
      if (!z.email().safeParse(input.target).success) issue("target", "An email channel's target is an email address.");
    } else {
      const refusal = urlRefusal(input.target);
      if (refusal) issue("target", refusal);
    }
    if (input.secret !== undefined) {
      if (input.kind !== "webhook") issue("secret", "Only a webhook channel is signed with a secret.");
      else if (!decodeWebhookSecret(input.secret))
        issue("secret", 'The secret is "whsec_" followed by the base64 of 24 to 64 random bytes.');
    }
  });
export type CreateChannelInput = z.input<typeof createChannelSchema>;

function urlRefusal(target: string): string | null {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return "The target must be an absolute URL, e.g. https://hooks.example.com/tether.";
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return "The target URL must use http or https.";
  if (url.username || url.password) return "Put no credentials in the URL.";
  const refusal = literalEgressRefusal(target);
  return refusal && refusal.replace("registered tools may not reach it", "notifications may not reach it");
}

export type ChannelView = {
  id: string;
  queue: string;
  kind: ChannelKind;
  target: string;
  events: NotificationEvent[];
  isSigned: boolean;
  createdBy: string;
  createdAt: Date;
  disabledAt: Date | null;
};

type ChannelRow = {
  id: string;
  queue: string;
  kind: string;
  target: string;
  secret: string | null;
  events: string;
  createdBy: string;
  createdAt: Date;
  disabledAt: Date | null;
};

/** A URL without what may be a credential (a Slack webhook's path is its secret): origin and path, the path's tail hidden. */
export function maskTarget(kind: string, target: string): string {
  if (kind === "email") return target;
  try {
    const url = new URL(target);
    const path = kind === "slack" && url.pathname.length > 12 ? `${url.pathname.slice(0, 12)}…` : url.pathname;
    return `${url.origin}${path}`;
  } catch {
    return "(invalid URL)";
  }
}

export const presentChannel = (row: ChannelRow): ChannelView => ({
  id: row.id,
  queue: row.queue,
  kind: row.kind as ChannelKind,
  target: maskTarget(row.kind, row.target),
  events: JSON.parse(row.events) as NotificationEvent[],
  isSigned: row.secret !== null,
  createdBy: row.createdBy,
  createdAt: row.createdAt,
  disabledAt: row.disabledAt,
});

const newSecret = () => `whsec_${randomBytes(32).toString("base64")}`;

/** Adds a channel to a queue. A webhook's secret (given or generated) is in the answer, this once. */
export async function createChannel(
  db: ChannelDb,
  input: unknown,
  opts: { by: string },
): Promise<ChannelView & { secret?: string }> {
  const channel = parseInput(createChannelSchema, input, "notification channel");
  const { queue, kind, target, events } = channel;
  const secret = kind === "webhook" ? (channel.secret ?? newSecret()) : null;
  const row = await db.notificationChannel.create({
    data: {
      id: newRecordId("ntc"),
      queue,
      kind,
      target,
      secret,
      events: JSON.stringify([...new Set(events)]),
      createdBy: opts.by,
    },
  });
  return { ...presentChannel(row), ...(secret ? { secret } : {}) };
}

/** Disables a channel: nothing more is sent through it. NOT_FOUND when there is none or it is already off. */
export async function disableChannel(db: ChannelDb, id: string, opts: { by: string; now?: Date }): Promise<void> {
  const { count } = await db.notificationChannel.updateMany({
    where: { id, disabledAt: null },
    data: { disabledAt: opts.now ?? new Date(), disabledBy: opts.by },
  });
  if (count === 0)
    throw new AppError("NOT_FOUND", {
      message: `notification channel ${id} not found or disabled`,
      userMessage: "That notification channel does not exist or is already removed.",
    });
}
