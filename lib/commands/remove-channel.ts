import { auditChange } from "@/lib/audit/audit-change";
import type { Db } from "@/lib/db";
import { disableChannel } from "@/lib/notifications/channels";

// Removing a notification channel (DELETE /api/notifications/:id): it is disabled (its deliveries stay on
// record), with its audit row in the same transaction. NOT_FOUND when there is none or it is already removed.

export type RemoveChannelCommand = { channelId: string; by: string; via?: string };

export async function removeChannel(deps: { db: Db }, command: RemoveChannelCommand): Promise<void> {
  await deps.db.$transaction(async (tx) => {
    await disableChannel(tx, command.channelId, { by: command.by });
    await auditChange(tx, command, "notifications.delete", { target: command.channelId });
  });
}
