import {
  assertAnotherAdmin,
  changeUser,
  changeUserRoleSchema,
  concurrentChange,
  refuseOwnLockout,
  type UserChange,
  type UserChangeActor,
} from "@/lib/auth/user-changes";
import type { Db } from "@/lib/db";

// An admin changing a person's role (the console's "Users" page): the change and its "users.role" audit
// row (before/after) in one transaction. An admin cannot demote themselves, and the last active admin
// cannot be demoted by anyone. The same role again changes nothing but is still recorded.

export async function changeUserRole(deps: { db: Db }, input: unknown, actor: UserChangeActor): Promise<UserChange> {
  const { userId, role } = changeUserRoleSchema.parse(input);
  refuseOwnLockout(
    actor,
    userId,
    role !== "admin",
    "demote themselves",
    "You cannot remove your own admin role. Ask another admin.",
  );
  return changeUser(deps.db, userId, actor, "users.role", async (tx, user) => {
    if (user.role !== role) {
      if (user.role === "admin" && !user.disabledAt) await assertAnotherAdmin(tx, userId);
      // Compare-and-set on the role read above: a concurrent change makes this one a CONFLICT.
      const { count } = await tx.user.updateMany({ where: { id: userId, role: user.role }, data: { role } });
      if (count === 0) throw concurrentChange();
    }
    return { email: user.email, before: { role: user.role }, after: { role } };
  });
}
