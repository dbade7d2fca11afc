"use server";
// Server actions of the admin "API tokens" page, over the same commands as /api/tokens. The token is
// returned once, by the create action, and never written to the audit log (which records its name and scopes).
import { z } from "zod";
import { defineAction } from "@/lib/actions/define-action";
import { createApiTokenSchema } from "@/lib/api/tokens";
import { createToken } from "@/lib/commands/create-token";
import { revokeToken } from "@/lib/commands/revoke-token";

export const createApiTokenAction = defineAction(
  { schema: createApiTokenSchema, scope: "admin:manage", audit: { action: "tokens.create", byHandler: true } },
  async (input, { user, db, revalidatePath }) => {
    const created = await createToken({ db }, { input, by: user.email });
    revalidatePath("/admin/tokens");
    return { id: created.id, name: created.name, prefix: created.prefix, scopes: created.scopes, token: created.token };
  },
);

export const revokeApiTokenAction = defineAction(
  {
    schema: z.object({ tokenId: z.string().trim().min(1) }),
    scope: "admin:manage",
    audit: { action: "tokens.revoke", byHandler: true },
  },
  async ({ tokenId }, { user, db, revalidatePath }) => {
    await revokeToken({ db }, { tokenId, by: user.email });
    revalidatePath("/admin/tokens");
    return { tokenId };
  },
);
