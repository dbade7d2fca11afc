import type { Db } from "@/lib/db";
import { presentChannel, type ChannelView } from "@/lib/notifications/channels";

// Read model of the admin notifications API: the channels of the workspace's queues and what was sent through them.

/** Every channel, newest first, never a secret; disabled ones too (their deliveries point at them). */
export async function findChannels(db: Pick<Db, "notificationChannel">): Promise<ChannelView[]> {
  // Open gates' callbacks (lib/gates/callbacks.ts) are channels of one gate each, not a team's: not listed.
  const rows = await db.notificationChannel.findMany({
    where: { NOT: { queue: { startsWith: "gate:" } } },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
  });
  return rows.map(presentChannel);
}

/** The most recent deliveries (for the admin API): what was sent where, how often, with which outcome. */
export async function findRecentDeliveries(
  db: Pick<Db, "notificationDelivery">,
  opts: { channelId?: string; limit?: number } = {},
) {
  return db.notificationDelivery.findMany({
    where: { channelId: opts.channelId },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: Math.min(opts.limit ?? 50, 200),
    select: {
      id: true,
      channelId: true,
      event: true,
      packetId: true,
      runId: true,
      status: true,
      attempts: true,
      lastError: true,
      nextAttemptAt: true,
      deliveredAt: true,
      createdAt: true,
    },
  });
}
