import { z } from "zod";
import { defineRoute } from "@/lib/api/route";
import { revokeApiToken } from "@/lib/api/tokens";
import { writeAudit } from "@/lib/audit/audit-log";
import { getDb } from "@/lib/db";

export const dynamic = "force-dynamic";

/** Revokes the token (404 when there is none, or it is already revoked); the audit row is written with it. */
export const DELETE = defineRoute({ scope: "admin", params: z.object({ id: z.string().min(1).max(200) }) }, async ({ principal, params }) => {
  await getDb().$transaction(async (tx) => {
    await revokeApiToken(tx, params.id);
    await writeAudit(tx, { actor: principal.principal, action: "tokens.revoke", target: params.id, data: { via: `token:${principal.name}` } });
  });
  return { revoked: params.id };
});
