import { z } from "zod";
import { defineRoute } from "@/lib/api/route";
import { writeAudit } from "@/lib/audit/audit-log";
import { getDb } from "@/lib/db";
import { createChannel, findChannels, findRecentDeliveries } from "@/lib/notifications/channels";

export const dynamic = "force-dynamic";

/** Every queue's notification channels (never a secret) and the most recent deliveries with their outcome. */
export const GET = defineRoute({ scope: "admin" }, async () => {
  const db = getDb();
  const [channels, deliveries] = await Promise.all([findChannels(db), findRecentDeliveries(db)]);
  return { channels, deliveries };
});

/**
 * {queue, kind: webhook|slack|email, target, events?, secret?} → 201 the channel; a webhook's signing
 * secret is in this answer only. The audit row is written with it (the target without its secret parts).
 */
export const POST = defineRoute({ scope: "admin", body: z.unknown() }, async ({ principal, body }) => {
  const created = await getDb().$transaction(async (tx) => {
    const channel = await createChannel(tx, body, { by: principal.principal });
    await writeAudit(tx, { actor: principal.principal, action: "notifications.create", target: channel.id, data: { queue: channel.queue, kind: channel.kind, target: channel.target, events: channel.events, via: `token:${principal.name}` } });
    return channel;
  });
  return Response.json(created, { status: 201 });
});
