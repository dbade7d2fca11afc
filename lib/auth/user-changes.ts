// What the two changes an admin makes to an existing account share (the commands are
// lib/commands/change-user-role.ts and set-user-disabled.ts; creating a user is lib/commands/create-user.ts).
// Both guard the console against locking itself out: an admin cannot demote or disable themselves, and
// the last active admin cannot be demoted or disabled by anyone.
import { z } from "zod";
import { auditChange } from "@/lib/audit/audit-change";
import { providerOfDb, type Db } from "@/lib/db";
import { AppError } from "@/lib/runtime/errors";
import { ROLES } from "./rbac";

export const changeUserRoleSchema = z.object({
  userId: z.string().trim().min(1),
  role: z.enum(ROLES, { error: `Use one of ${ROLES.join(", ")}.` }),
});
export const setUserDisabledSchema = z.object({ userId: z.string().trim().min(1), isDisabled: z.boolean() });

export type UserChangeActor = { id: string; email: string; via?: string };
/** A change as its audit row holds it: whose account, and the field before and after. */
export type UserChange = { email: string; before: Record<string, unknown>; after: Record<string, unknown> };

export const concurrentChange = () =>
  new AppError("CONFLICT", {
    message: "user changed concurrently",
    userMessage: "Someone changed this user at the same time. Reload and try again.",
  });

type Tx = Parameters<Parameters<Db["$transaction"]>[0]>[0];

/**
 * A change that may remove an admin first locks the active admins' rows, so two admins demoting each
 * other at once cannot each count the other as "another admin" and both commit, leaving none: the second
 * waits, then finds itself the last. (Postgres; SQLite already runs one writing transaction at a time.)
 */
export async function inAdminGuardedTransaction<T>(db: Db, change: (tx: Tx) => Promise<T>): Promise<T> {
  const postgres = providerOfDb(db) === "postgres";
  return db.$transaction(async (tx) => {
    if (postgres)
      await tx.$queryRawUnsafe(
        `SELECT id FROM "User" WHERE role = 'admin' AND "disabledAt" IS NULL ORDER BY id FOR UPDATE`,
      );
    return change(tx);
  });
}

export const notFound = () =>
  new AppError("NOT_FOUND", { message: "user not found", userMessage: "That user does not exist." });

/** Inside the transaction: would this change leave the console without an active admin? */
export async function assertAnotherAdmin(tx: Pick<Db, "user">, userId: string) {
  const others = await tx.user.count({ where: { role: "admin", disabledAt: null, id: { not: userId } } });
  if (others === 0)
    throw new AppError("CONFLICT", {
      message: "last admin",
      userMessage: "This is the last active admin: make someone else an admin first.",
    });
}

/** An admin cannot lock themselves out: FORBIDDEN when the change is to their own account and `locksOut`. */
export function refuseOwnLockout(
  actor: UserChangeActor,
  userId: string,
  locksOut: boolean,
  lockout: string,
  userMessage: string,
) {
  if (userId === actor.id && locksOut)
    throw new AppError("FORBIDDEN", { message: `${actor.email} tried to ${lockout}`, userMessage });
}

type ChangedUser = { email: string; role: string; disabledAt: Date | null };

/**
 * The frame of both changes: in one admin-guarded transaction, the account read (NOT_FOUND when there is none),
 * changed by `apply` (compare-and-set: `concurrentChange()` when it lost a race) and the change's audit row
 * (`action`, before/after) written. `apply` says what changed even when nothing had to: the row is still written.
 */
export async function changeUser(
  db: Db,
  userId: string,
  actor: UserChangeActor,
  action: string,
  apply: (tx: Tx, user: ChangedUser) => Promise<UserChange>,
): Promise<UserChange> {
  return inAdminGuardedTransaction(db, async (tx) => {
    const user = await tx.user.findUnique({
      where: { id: userId },
      select: { email: true, role: true, disabledAt: true },
    });
    if (!user) throw notFound();
    const change = await apply(tx, user);
    await auditChange(tx, { by: actor.email, via: actor.via }, action, { target: user.email, data: change });
    return change;
  });
}
