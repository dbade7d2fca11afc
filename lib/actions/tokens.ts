"use server";
// Server actions of the admin "API tokens" page. The token is returned once, by the create action,
// and never written to the audit log (which records its name and scopes).
import { z } from "zod";
import { defineAction } from "@/lib/actions/define-action";
import { createApiToken, createApiTokenSchema, revokeApiToken } from "@/lib/api/tokens";

export const createApiTokenAction = defineAction(
  {
    schema: createApiTokenSchema,
    scope: "admin:manage",
    audit: { action: "tokens.create", target: (_input, token: { id: string }) => token.id, data: ({ name, scopes }) => ({ name, scopes }) },
  },
  async (input, { user, db, revalidatePath }) => {
    const created = await createApiToken(db, input, { createdBy: user.email });
    revalidatePath("/admin/tokens");
    return { id: created.id, name: created.name, prefix: created.prefix, scopes: created.scopes, token: created.token };
  },
);

export const revokeApiTokenAction = defineAction(
  { schema: z.object({ tokenId: z.string().trim().min(1) }), scope: "admin:manage", audit: { action: "tokens.revoke", target: ({ tokenId }) => tokenId } },
  async ({ tokenId }, { db, revalidatePath }) => {
    await revokeApiToken(db, tokenId);
    revalidatePath("/admin/tokens");
    return { tokenId };
  },
);
