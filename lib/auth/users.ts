// Console users: sign-in checks, creation (CLI, seed, OIDC provisioning) and lookups.
// Emails are stored lower-case. A disabled user cannot sign in, and an existing session stops working
// at its next request (lib/auth/session.ts re-reads the user).
import { DEFAULT_WORKSPACE_ID } from "@/lib/runtime/workspace";
import { activeWorkspace } from "@/lib/workspaces/scope";
import { randomUUID } from "node:crypto";
import { z } from "zod";
import type { Db } from "@/lib/db";
import { AppError, fieldErrorsFromIssues } from "@/lib/runtime/errors";
import { writeAudit } from "@/lib/audit/audit-log";
import { DEMO_PASSWORD, DEMO_USERS, isDemoMode } from "./mode";
import { hashPassword, passwordWeakness, verifyAgainstDummy, verifyPassword } from "./password";
import { isRole, ROLES, type Role, type SessionUser } from "./rbac";

export const normalizeEmail = (email: string) => email.trim().toLowerCase();

const userSelect = { id: true, email: true, name: true, role: true, disabledAt: true } as const;
type UserRow = { id: string; email: string; name: string | null; role: string; disabledAt: Date | null };

function toSessionUser(row: UserRow | null): SessionUser | null {
  if (!row || row.disabledAt || !isRole(row.role)) return null;
  return { id: row.id, email: row.email, name: row.name, role: row.role };
}

/** The user behind a session, re-read on every request: null once disabled or deleted. */
export async function getActiveUser(db: Db, id: string): Promise<SessionUser | null> {
  return toSessionUser(await db.user.findUnique({ where: { id }, select: userSelect }));
}

export const credentialsSchema = z.object({
  email: z.string().trim().min(1, "Enter your email address.").max(320).email("Enter a valid email address."),
  password: z.string().min(1, "Enter your password.").max(256),
});

export type CredentialsCheck =
  | { ok: true; user: SessionUser }
  | {
      ok: false;
      reason:
        "invalid-input" | "unknown-user" | "no-password" | "wrong-password" | "disabled" | "demo-account-outside-demo";
    };

/**
 * Email + password → the user, or why not (for the audit log only: a person is told nothing more than
 * "wrong email or password"). Unknown users cost the same time as known ones.
 */
export async function checkCredentials(
  db: Db,
  credentials: unknown,
  opts: { demoMode?: boolean } = {},
): Promise<CredentialsCheck> {
  const parsed = credentialsSchema.safeParse(credentials);
  if (!parsed.success) return { ok: false, reason: "invalid-input" };
  const { password } = parsed.data;
  const row = await db.user.findUnique({
    where: { email: normalizeEmail(parsed.data.email) },
    select: { ...userSelect, passwordHash: true },
  });
  if (!row) return (await verifyAgainstDummy(password), { ok: false, reason: "unknown-user" });
  if (!row.passwordHash) return (await verifyAgainstDummy(password), { ok: false, reason: "no-password" });
  if (!(await verifyPassword(password, row.passwordHash))) return { ok: false, reason: "wrong-password" };
  if (row.disabledAt) return { ok: false, reason: "disabled" };
  // A database that was a demo once keeps its demo accounts: outside demo mode their well-known
  // password no longer opens them.
  if (password === DEMO_PASSWORD && !(opts.demoMode ?? isDemoMode()))
    return { ok: false, reason: "demo-account-outside-demo" };
  const user = toSessionUser(row);
  return user ? { ok: true, user } : { ok: false, reason: "disabled" };
}

/** The Credentials provider's authorize(): the user, or null for any failure. */
export async function authorizeCredentials(
  db: Db,
  credentials: unknown,
  opts: { demoMode?: boolean } = {},
): Promise<SessionUser | null> {
  const check = await checkCredentials(db, credentials, opts);
  return check.ok ? check.user : null;
}

export const createUserSchema = z.object({
  email: z.string().trim().max(320).email("Enter a valid email address."),
  name: z.string().trim().max(200).optional(),
  role: z.enum(ROLES),
  password: z.string().optional(),
});
export type CreateUserInput = z.input<typeof createUserSchema>;

/** Creates a user (password checked for strength, then hashed) and its audit row in one transaction. */
export async function createUser(db: Db, input: CreateUserInput, opts: { actor: string }): Promise<SessionUser> {
  const parsed = createUserSchema.safeParse(input);
  if (!parsed.success)
    throw new AppError("INVALID_INPUT", {
      message: "invalid user",
      userMessage: "The user is invalid.",
      fieldErrors: fieldErrorsFromIssues(parsed.error.issues),
    });
  const email = normalizeEmail(parsed.data.email);
  const { password, role } = parsed.data;
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
    db,
    { email, name: parsed.data.name || null, role, passwordHash },
    { actor: opts.actor, action: "users.create" },
  );
}

async function insertUser(
  db: Db,
  data: { email: string; name: string | null; role: Role; passwordHash: string | null },
  audit: { actor: string; action: string },
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

/** Demo mode's three accounts (password "tether-demo"). Idempotent: existing accounts are left alone. */
export async function seedDemoUsers(db: Db): Promise<void> {
  const passwordHash = await hashPassword(DEMO_PASSWORD);
  for (const demo of DEMO_USERS) {
    const exists = await db.user.findUnique({ where: { email: demo.email }, select: { id: true } });
    if (exists) continue;
    await insertUser(
      db,
      { email: demo.email, name: demo.name, role: demo.role, passwordHash },
      { actor: "seed", action: "users.create" },
    );
  }
}

/** The demo accounts that exist and can sign in (the sign-in page lists them in demo mode). */
export async function findDemoAccounts(db: Db): Promise<Array<{ email: string; role: Role }>> {
  const rows = await db.user.findMany({
    where: { email: { in: DEMO_USERS.map((d) => d.email) }, disabledAt: null },
    select: { email: true, role: true },
  });
  return DEMO_USERS.filter((d) => rows.some((r) => r.email === d.email)).map((d) => ({
    email: d.email,
    role: rows.find((r) => r.email === d.email)!.role as Role,
  }));
}

export async function countUsers(db: Db): Promise<number> {
  return db.user.count();
}

export type OidcProfile = { email?: string | null; name?: string | null; emailVerified?: boolean | null };

/**
 * A person signing in through OIDC gets the role of the User row with the same email. Without one, a
 * row is created with `defaultRole` (AUTH_OIDC_DEFAULT_ROLE), or — with "none", the default — they are
 * refused: an admin adds people first. Refused too: no email, an email the provider does not say is
 * verified (the account is linked by email, so an unverified one could be anybody's), a disabled user.
 */
export async function resolveOidcUser(
  db: Db,
  profile: OidcProfile,
  opts: { defaultRole: Role | "none"; issuer?: string },
): Promise<SessionUser | null> {
  if (!profile.email || profile.emailVerified !== true) return null;
  const email = normalizeEmail(profile.email);
  const row = await db.user.findUnique({ where: { email }, select: userSelect });
  if (row) return toSessionUser(row);
  if (opts.defaultRole === "none") return null;
  try {
    return await insertUser(
      db,
      { email, name: profile.name?.trim() || null, role: opts.defaultRole, passwordHash: null },
      { actor: `oidc:${opts.issuer ?? "provider"}`, action: "users.provision" },
    );
  } catch (error) {
    if (error instanceof AppError && error.code === "CONFLICT")
      return toSessionUser(await db.user.findUnique({ where: { email }, select: userSelect }));
    throw error;
  }
}
