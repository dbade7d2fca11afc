import {
  assertAnotherAdmin,
  changeUser,
  concurrentChange,
  refuseOwnLockout,
  setUserDisabledSchema,
  type UserChange,
  type UserChangeActor,
} from "@/lib/auth/user-changes";
import type { Db } from "@/lib/db";

// An admin disabling or enabling a person's account (the console's "Users" page): the change and its
// "users.disable" audit row (before/after) in one transaction. An admin cannot disable themselves, and the
// last active admin cannot be disabled by anyone. The same state again changes nothing but is still recorded.

export async function setUserDisabled(deps: { db: Db }, input: unknown, actor: UserChangeActor): Promise<UserChange> {
  const { userId, isDisabled } = setUserDisabledSchema.parse(input);
  refuseOwnLockout(actor, userId, isDisabled, "disable themselves", "You cannot disable your own account.");
  return changeUser(deps.db, userId, actor, "users.disable", async (tx, user) => {
    const wasDisabled = user.disabledAt !== null;
    if (wasDisabled !== isDisabled) {
      if (isDisabled && user.role === "admin") await assertAnotherAdmin(tx, userId);
      const { count } = await tx.user.updateMany({
        where: { id: userId, disabledAt: isDisabled ? null : { not: null } },
        data: { disabledAt: isDisabled ? new Date() : null },
      });
      if (count === 0) throw concurrentChange();
    }
    return { email: user.email, before: { disabled: wasDisabled }, after: { disabled: isDisabled } };
  });
}
