import { auditChange } from "@/lib/audit/audit-change";
import type { Db } from "@/lib/db";
import { createChannel as insertChannel } from "@/lib/notifications/channels";

// Adding a notification channel to a queue (POST /api/notifications): the channel and its audit row in one
// transaction. The row holds the target as shown (without its secret parts), never a webhook's secret.

export type CreateChannelCommand = { input: unknown; by: string; via?: string };

export async function createChannel(deps: { db: Db }, command: CreateChannelCommand) {
  return deps.db.$transaction(async (tx) => {
    const channel = await insertChannel(tx, command.input, { by: command.by });
    await auditChange(tx, command, "notifications.create", {
      target: channel.id,
      data: { queue: channel.queue, kind: channel.kind, target: channel.target, events: channel.events },
    });
    return channel;
  });
}
