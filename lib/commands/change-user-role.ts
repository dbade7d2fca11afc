import type { z } from "zod";
import { writeAudit } from "@/lib/audit/audit-log";
import {
  assertAnotherAdmin,
  changeUserRoleSchema,
  concurrentChange,
  inAdminGuardedTransaction,
  notFound,
  type UserChange,
  type UserChangeActor,
} from "@/lib/auth/user-changes";
import type { Db } from "@/lib/db";
import { AppError } from "@/lib/runtime/errors";

// An admin changing a person's role (the console's "Users" page): the change and its "users.role" audit
// row (before/after) in one transaction. An admin cannot demote themselves, and the last active admin
// cannot be demoted by anyone. The same role again changes nothing but is still recorded.

export async function changeUserRole(
  deps: { db: Db },
  input: z.input<typeof changeUserRoleSchema>,
  actor: UserChangeActor & { via?: string },
): Promise<UserChange> {
  const { userId, role } = changeUserRoleSchema.parse(input);
  if (userId === actor.id && role !== "admin") {
    throw new AppError("FORBIDDEN", {
      message: `${actor.email} tried to demote themselves`,
      userMessage: "You cannot remove your own admin role. Ask another admin.",
    });
  }
  return inAdminGuardedTransaction(deps.db, async (tx) => {
    const user = await tx.user.findUnique({
      where: { id: userId },
      select: { email: true, role: true, disabledAt: true },
    });
    if (!user) throw notFound();
    const change = { email: user.email, before: { role: user.role }, after: { role } };
    if (user.role !== role) {
      if (user.role === "admin" && !user.disabledAt) await assertAnotherAdmin(tx, userId);
      // Compare-and-set on the role read above: a concurrent change makes this one a CONFLICT.
      const { count } = await tx.user.updateMany({ where: { id: userId, role: user.role }, data: { role } });
      if (count === 0) throw concurrentChange();
    }
    await writeAudit(tx, {
      actor: actor.email,
      action: "users.role",
      target: user.email,
      data: change,
      via: actor.via,
    });
    return change;
  });
}
