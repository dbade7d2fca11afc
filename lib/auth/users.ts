// Console users: sign-in checks and lookups (creating one is lib/commands/create-user.ts, with its
// OIDC and demo variants beside it). Emails are stored lower-case. A disabled user cannot sign in, and an existing session stops working
// at its next request (lib/auth/session.ts re-reads the user).
import { z } from "zod";
import type { Db } from "@/lib/db";
import { DEMO_PASSWORD, DEMO_USERS, isDemoMode } from "./mode";
import { verifyAgainstDummy, verifyPassword } from "./password";
import { isRole, type Role, type SessionUser } from "./rbac";

export const normalizeEmail = (email: string) => email.trim().toLowerCase();

export const userSelect = { id: true, email: true, name: true, role: true, disabledAt: true } as const;
type UserRow = { id: string; email: string; name: string | null; role: string; disabledAt: Date | null };

/** The row as a session's user: null when disabled or its role is unknown. */
export function toSessionUser(row: UserRow | null): SessionUser | null {
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
