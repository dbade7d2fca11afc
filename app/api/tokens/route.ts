import { z } from "zod";
import { defineRoute } from "@/lib/api/route";
import { createApiToken, findApiTokens } from "@/lib/api/tokens";
import { writeAudit } from "@/lib/audit/audit-log";
import { getDb } from "@/lib/db";

export const dynamic = "force-dynamic";

/** Every token (never its value): name, prefix, scopes, owner, expiry, last use, revocation. */
export const GET = defineRoute({ scope: "admin" }, async () => ({ tokens: await findApiTokens(getDb()) }));

/**
 * {name, scopes, user?, expiresInDays?} → 201 {token, id, …}: the token's value, shown this once. It acts as
 * `user` (default: the caller's owner), within that person's role. The audit row is written with it.
 */
export const POST = defineRoute({ scope: "admin", body: z.unknown() }, async ({ principal, body }) => {
  const created = await getDb().$transaction(async (tx) => {
    const token = await createApiToken(tx, body, { createdBy: principal.principal });
    await writeAudit(tx, { actor: principal.principal, action: "tokens.create", target: token.id, data: { name: token.name, scopes: token.scopes, user: token.user, expiresAt: token.expiresAt, via: `token:${principal.name}` } });
    return token;
  });
  return Response.json(created, { status: 201 });
});
