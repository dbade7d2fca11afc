"use server";
// Server actions of the admin "Users" page: create a user, change a role, disable or enable an account.
// Each change writes its own audit row in its transaction (lib/commands/create-user.ts, *-user-*.ts).
import type { z } from "zod";
import { defineAction, type ActionContext } from "@/lib/actions/define-action";
import { requireAccountAdmin } from "@/lib/workspaces/members";
import { changeUserRoleSchema, setUserDisabledSchema } from "@/lib/auth/user-changes";
import { changeUserRole } from "@/lib/commands/change-user-role";
import { createUser, createUserSchema } from "@/lib/commands/create-user";
import { setUserDisabled } from "@/lib/commands/set-user-disabled";

// An admin gives the first password: it is required here (OIDC-only accounts are made by signing in).
const createUserActionSchema = createUserSchema.extend({
  password: createUserSchema.shape.password.unwrap().min(1, "Give an initial password."),
});

/**
 * A change to people's accounts: only an admin of the accounts (requireAccountAdmin) makes it; the command writes
 * its own audit row in its transaction (createUser's without the password); the Users page is revalidated.
 */
function accountAction<S extends z.ZodType, O>(
  schema: S,
  action: string,
  change: (input: z.output<S>, ctx: ActionContext) => Promise<O>,
) {
  return defineAction({ schema, scope: "admin:manage", audit: { action, byHandler: true } }, async (input, ctx) => {
    await requireAccountAdmin(ctx.db, ctx.user);
    const result = await change(input, ctx);
    ctx.revalidatePath("/admin/users");
    return result;
  });
}

export const createUserAction = accountAction(createUserActionSchema, "users.create", (input, { user, db }) =>
  createUser({ db }, input, { by: user.email }),
);
export const changeUserRoleAction = accountAction(changeUserRoleSchema, "users.role", (input, { user, db }) =>
  changeUserRole({ db }, input, user),
);
export const setUserDisabledAction = accountAction(setUserDisabledSchema, "users.disable", (input, { user, db }) =>
  setUserDisabled({ db }, input, user),
);
