// The two changes an admin makes to an existing account on the "Users" page: its role, and whether it
// can sign in. Creating a user is ./users.ts's createUser. Both guard the console against locking itself
// out: an admin cannot demote or disable themselves, and the last active admin cannot be demoted or
// disabled by anyone.
import { z } from "zod";
import { providerOfDb, type Db } from "@/lib/db";
import { AppError } from "@/lib/runtime/errors";
import { ROLES } from "./rbac";

export const changeUserRoleSchema = z.object({ userId: z.string().trim().min(1), role: z.enum(ROLES, { error: `Use one of ${ROLES.join(", ")}.` }) });
export const setUserDisabledSchema = z.object({ userId: z.string().trim().min(1), isDisabled: z.boolean() });

type Actor = { id: string; email: string };
type Change = { email: string; before: Record<string, unknown>; after: Record<string, unknown> };

const concurrentChange = () => new AppError("CONFLICT", { message: "user changed concurrently", userMessage: "Someone changed this user at the same time. Reload and try again." });

type Tx = Parameters<Parameters<Db["$transaction"]>[0]>[0];

/**
 * A change that may remove an admin first locks the active admins' rows, so two admins demoting each
 * other at once cannot each count the other as "another admin" and both commit, leaving none: the second
 * waits, then finds itself the last. (Postgres; SQLite already runs one writing transaction at a time.)
 */
async function inAdminGuardedTransaction<T>(db: Db, change: (tx: Tx) => Promise<T>): Promise<T> {
  const postgres = providerOfDb(db) === "postgres";
  return db.$transaction(async (tx) => {
    if (postgres) await tx.$queryRawUnsafe(`SELECT id FROM "User" WHERE role = 'admin' AND "disabledAt" IS NULL ORDER BY id FOR UPDATE`);
    return change(tx);
  });
}

const notFound = () => new AppError("NOT_FOUND", { message: "user not found", userMessage: "That user does not exist." });

/** Inside the transaction: would this change leave the console without an active admin? */
async function assertAnotherAdmin(tx: Pick<Db, "user">, userId: string) {
  const others = await tx.user.count({ where: { role: "admin", disabledAt: null, id: { not: userId } } });
  if (others === 0) throw new AppError("CONFLICT", { message: "last admin", userMessage: "This is the last active admin: make someone else an admin first." });
}

export async function changeUserRole(db: Db, input: z.input<typeof changeUserRoleSchema>, actor: Actor): Promise<Change> {
  const { userId, role } = changeUserRoleSchema.parse(input);
  if (userId === actor.id && role !== "admin") {
    throw new AppError("FORBIDDEN", { message: `${actor.email} tried to demote themselves`, userMessage: "You cannot remove your own admin role. Ask another admin." });
  }
  return inAdminGuardedTransaction(db, async (tx) => {
    const user = await tx.user.findUnique({ where: { id: userId }, select: { email: true, role: true, disabledAt: true } });
    if (!user) throw notFound();
    if (user.role === role) return { email: user.email, before: { role }, after: { role } };
    if (user.role === "admin" && !user.disabledAt) await assertAnotherAdmin(tx, userId);
    // Compare-and-set on the role read above: a concurrent change makes this one a CONFLICT.
    const { count } = await tx.user.updateMany({ where: { id: userId, role: user.role }, data: { role } });
    if (count === 0) throw concurrentChange();
    return { email: user.email, before: { role: user.role }, after: { role } };
  });
}

export async function setUserDisabled(db: Db, input: z.input<typeof setUserDisabledSchema>, actor: Actor): Promise<Change> {
  const { userId, isDisabled } = setUserDisabledSchema.parse(input);
  if (userId === actor.id && isDisabled) {
    throw new AppError("FORBIDDEN", { message: `${actor.email} tried to disable themselves`, userMessage: "You cannot disable your own account." });
  }
  return inAdminGuardedTransaction(db, async (tx) => {
    const user = await tx.user.findUnique({ where: { id: userId }, select: { email: true, role: true, disabledAt: true } });
    if (!user) throw notFound();
    const wasDisabled = user.disabledAt !== null;
    if (wasDisabled === isDisabled) return { email: user.email, before: { disabled: wasDisabled }, after: { disabled: isDisabled } };
    if (isDisabled && user.role === "admin") await assertAnotherAdmin(tx, userId);
    const { count } = await tx.user.updateMany({ where: { id: userId, disabledAt: isDisabled ? null : { not: null } }, data: { disabledAt: isDisabled ? new Date() : null } });
    if (count === 0) throw concurrentChange();
    return { email: user.email, before: { disabled: wasDisabled }, after: { disabled: isDisabled } };
  });
}
