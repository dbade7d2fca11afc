"use server";
// Server actions of the admin "Users" page: create a user, change a role, disable or enable an account.
// Each change writes its own audit row in its transaction (lib/commands/create-user.ts, *-user-*.ts).
import { defineAction } from "@/lib/actions/define-action";
import { requireAccountAdmin } from "@/lib/workspaces/members";
import { changeUserRoleSchema, setUserDisabledSchema } from "@/lib/auth/user-changes";
import { changeUserRole } from "@/lib/commands/change-user-role";
import { createUser, createUserSchema } from "@/lib/commands/create-user";
import { setUserDisabled } from "@/lib/commands/set-user-disabled";

// An admin gives the first password: it is required here (OIDC-only accounts are made by signing in).
const createUserActionSchema = createUserSchema.extend({
  password: createUserSchema.shape.password.unwrap().min(1, "Give an initial password."),
});

export const createUserAction = defineAction(
  // createUser writes its own audit row (without the password) in the user's transaction.
  { schema: createUserActionSchema, scope: "admin:manage", audit: { action: "users.create", byHandler: true } },
  async (input, { user, db, revalidatePath }) => {
    await requireAccountAdmin(db, user);
    const created = await createUser({ db }, input, { by: user.email });
    revalidatePath("/admin/users");
    return created;
  },
);

export const changeUserRoleAction = defineAction(
  { schema: changeUserRoleSchema, scope: "admin:manage", audit: { action: "users.role", byHandler: true } },
  async (input, { user, db, revalidatePath }) => {
    await requireAccountAdmin(db, user);
    const change = await changeUserRole({ db }, input, user);
    revalidatePath("/admin/users");
    return change;
  },
);

export const setUserDisabledAction = defineAction(
  { schema: setUserDisabledSchema, scope: "admin:manage", audit: { action: "users.disable", byHandler: true } },
  async (input, { user, db, revalidatePath }) => {
    await requireAccountAdmin(db, user);
    const change = await setUserDisabled({ db }, input, user);
    revalidatePath("/admin/users");
    return change;
  },
);
