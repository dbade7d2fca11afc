import { defineRoute, tokenActor } from "@/lib/api/route";
import { idParams } from "@/lib/api/schemas";
import { revokeToken } from "@/lib/commands/revoke-token";

export const dynamic = "force-dynamic";

/** Revokes the token (404 when there is none, or it is already revoked); the audit row is written with it. */
export const DELETE = defineRoute({ scope: "admin", params: idParams }, async ({ principal, params, db }) => {
  await revokeToken({ db }, { tokenId: params.id, ...tokenActor(principal) });
  return { revoked: params.id };
});
