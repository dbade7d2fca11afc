import { z } from "zod";
import { defineRoute } from "@/lib/api/route";
import { writeAudit } from "@/lib/audit/audit-log";
import { getDb } from "@/lib/db";
import { disableChannel } from "@/lib/notifications/channels";

export const dynamic = "force-dynamic";

/** Removes a channel: nothing more is sent through it (404 when there is none, or it is already removed); audited with it. */
export const DELETE = defineRoute({ scope: "admin", params: z.object({ id: z.string().min(1).max(200) }) }, async ({ principal, params }) => {
  await getDb().$transaction(async (tx) => {
    await disableChannel(tx, params.id, { by: principal.principal });
    await writeAudit(tx, { actor: principal.principal, action: "notifications.delete", target: params.id, data: { via: `token:${principal.name}` } });
  });
  return { removed: params.id };
});
