import { z } from "zod";
import { defineRoute, tokenActor } from "@/lib/api/route";
import { createChannel } from "@/lib/commands/create-channel";
import { findChannels, findRecentDeliveries } from "@/lib/queries/notifications";

export const dynamic = "force-dynamic";

/** Every queue's notification channels (never a secret) and the most recent deliveries with their outcome. */
export const GET = defineRoute({ scope: "admin" }, async ({ db }) => {
  const [channels, deliveries] = await Promise.all([findChannels(db), findRecentDeliveries(db)]);
  return { channels, deliveries };
});

/**
 * {queue, kind: webhook|slack|email, target, events?, secret?} → 201 the channel; a webhook's signing
 * secret is in this answer only. The audit row is written with it (the target without its secret parts).
 */
export const POST = defineRoute({ scope: "admin", body: z.unknown() }, async ({ principal, body, db }) => {
  const created = await createChannel({ db }, { input: body, ...tokenActor(principal) });
  return Response.json(created, { status: 201 });
});
