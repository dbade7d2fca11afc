import { randomUUID } from "node:crypto";
import { z } from "zod";
import { writeAudit } from "@/lib/audit/audit-log";
import { hashPassword, passwordWeakness } from "@/lib/auth/password";
import { ROLES, type Role, type SessionUser } from "@/lib/auth/rbac";
import { normalizeEmail, toSessionUser, userSelect } from "@/lib/auth/users";
import type { Db } from "@/lib/db";
import { AppError, parseInput } from "@/lib/runtime/errors";
import { DEFAULT_WORKSPACE_ID } from "@/lib/runtime/workspace";
import { activeWorkspace } from "@/lib/workspaces/scope";

// A person's account made by an admin (the console's "Users" page) or on the server's shell (`tether
// create-admin`): the password checked for strength and hashed, then the user and its "users.create" audit
// row (role, whether it has a password; never the password) in one transaction. CONFLICT for a taken email.

export const createUserSchema = z.object({
  email: z.string().trim().max(320).email("Enter a valid email address."),
  name: z.string().trim().max(200).optional(),
  role: z.enum(ROLES),
  password: z.string().optional(),
});
export type CreateUserInput = z.input<typeof createUserSchema>;

/** `by` is who makes the account: an admin's email, or "cli:<user>" for the shell. */
export async function createUser(
  deps: { db: Db },
  input: CreateUserInput,
  actor: { by: string; via?: string },
): Promise<SessionUser> {
  const fields = parseInput(createUserSchema, input, "user");
  const email = normalizeEmail(fields.email);
  const { password, role } = fields;
  if (password !== undefined) {
    const weakness = passwordWeakness(password, email);
    if (weakness)
      throw new AppError("INVALID_INPUT", {
        message: "weak password",
        userMessage: `The password is too weak: ${weakness}`,
        fieldErrors: { password: [weakness] },
      });
  }
  const passwordHash = password === undefined ? null : await hashPassword(password);
  return insertUser(
    deps.db,
    { email, name: fields.name || null, role, passwordHash },
    { actor: actor.by, action: "users.create", via: actor.via },
  );
}

export type NewUser = { email: string; name: string | null; role: Role; passwordHash: string | null };

/**
 * The one place a User row is made (this file's createUser, resolve-oidc-user.ts, seed-demo-users.ts): the
 * row, its membership when made from another workspace, and its audit row in one transaction. The data is
 * already checked; CONFLICT when the email is taken.
 */
export async function insertUser(
  db: Db,
  data: NewUser,
  audit: { actor: string; action: string; via?: string },
): Promise<SessionUser> {
  try {
    return await db.$transaction(async (tx) => {
      // The first admin of a deployment is its instance admin (may create workspaces); later ones are made so by hand.
      const instanceAdmin = data.role === "admin" && (await tx.user.count({ where: { instanceAdmin: true } })) === 0;
      const row = await tx.user.create({
        data: { id: `usr_${randomUUID().replaceAll("-", "")}`, ...data, instanceAdmin },
        select: userSelect,
      });
      // Made from another workspace's admin page: a member there too, with that role.
      const workspaceId = await activeWorkspace();
      if (workspaceId && workspaceId !== DEFAULT_WORKSPACE_ID)
        await tx.membership.create({ data: { userId: row.id, workspaceId, role: data.role } });
      await writeAudit(tx, {
        actor: audit.actor,
        action: audit.action,
        target: row.email,
        data: { role: row.role, hasPassword: data.passwordHash !== null },
        via: audit.via,
      });
      return toSessionUser(row)!;
    });
  } catch (error) {
    if ((error as { code?: string }).code === "P2002") {
      throw new AppError("CONFLICT", {
        message: `user ${data.email} exists`,
        userMessage: `A user with the email ${data.email} already exists.`,
      });
    }
    throw error;
  }
}
