import type { z } from "zod";
import { writeAudit } from "@/lib/audit/audit-log";
import {
  assertAnotherAdmin,
  concurrentChange,
  inAdminGuardedTransaction,
  notFound,
  setUserDisabledSchema,
  type UserChange,
  type UserChangeActor,
} from "@/lib/auth/user-changes";
import type { Db } from "@/lib/db";
import { AppError } from "@/lib/runtime/errors";

// An admin disabling or enabling a person's account (the console's "Users" page): the change and its
// "users.disable" audit row (before/after) in one transaction. An admin cannot disable themselves, and the
// last active admin cannot be disabled by anyone. The same state again changes nothing but is still recorded.

export async function setUserDisabled(
  deps: { db: Db },
  input: z.input<typeof setUserDisabledSchema>,
  actor: UserChangeActor & { via?: string },
): Promise<UserChange> {
  const { userId, isDisabled } = setUserDisabledSchema.parse(input);
  if (userId === actor.id && isDisabled) {
    throw new AppError("FORBIDDEN", {
      message: `${actor.email} tried to disable themselves`,
      userMessage: "You cannot disable your own account.",
    });
  }
  return inAdminGuardedTransaction(deps.db, async (tx) => {
    const user = await tx.user.findUnique({
      where: { id: userId },
      select: { email: true, role: true, disabledAt: true },
    });
    if (!user) throw notFound();
    const wasDisabled = user.disabledAt !== null;
    const change = { email: user.email, before: { disabled: wasDisabled }, after: { disabled: isDisabled } };
    if (wasDisabled !== isDisabled) {
      if (isDisabled && user.role === "admin") await assertAnotherAdmin(tx, userId);
      const { count } = await tx.user.updateMany({
        where: { id: userId, disabledAt: isDisabled ? null : { not: null } },
        data: { disabledAt: isDisabled ? new Date() : null },
      });
      if (count === 0) throw concurrentChange();
    }
    await writeAudit(tx, {
      actor: actor.email,
      action: "users.disable",
      target: user.email,
      data: change,
      via: actor.via,
    });
    return change;
  });
}
