import { createChannel as insertChannel } from "@/lib/notifications/channels";
import { auditedCreation, type CreateCommand } from "./audited-creation";

// Adding a notification channel to a queue (POST /api/notifications): the channel and its audit row in one
// transaction. The row holds the target as shown (without its secret parts), never a webhook's secret.

export type CreateChannelCommand = CreateCommand;

export const createChannel = auditedCreation(
  "notifications.create",
  (tx, { input, by }) => insertChannel(tx, input, { by }),
  ({ queue, kind, target, events }) => ({ queue, kind, target, events }),
);
