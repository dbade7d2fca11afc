import { z } from "zod";
import { defineRoute, tokenActor } from "@/lib/api/route";
import { findApiTokens } from "@/lib/api/tokens";
import { createToken } from "@/lib/commands/create-token";

export const dynamic = "force-dynamic";

/** Every token (never its value): name, prefix, scopes, owner, expiry, last use, revocation. */
export const GET = defineRoute({ scope: "admin" }, async ({ db }) => ({ tokens: await findApiTokens(db) }));

/**
 * {name, scopes, user?, expiresInDays?} → 201 {token, id, …}: the token's value, shown this once. It acts as
 * `user` (default: the caller's owner), within that person's role. The audit row is written with it.
 */
export const POST = defineRoute({ scope: "admin", body: z.unknown() }, async ({ principal, body, db }) => {
  const created = await createToken({ db }, { input: body, ...tokenActor(principal) });
  return Response.json(created, { status: 201 });
});
