import { z } from "zod";
import { defineRoute } from "@/lib/api/route";
import { revokeToken } from "@/lib/commands/revoke-token";

export const dynamic = "force-dynamic";

/** Revokes the token (404 when there is none, or it is already revoked); the audit row is written with it. */
export const DELETE = defineRoute(
  { scope: "admin", params: z.object({ id: z.string().min(1).max(200) }) },
  async ({ principal, params, db }) => {
    await revokeToken({ db }, { tokenId: params.id, by: principal.principal, via: `token:${principal.name}` });
    return { revoked: params.id };
  },
);
