import { normalizeEmail, toSessionUser, userSelect } from "@/lib/auth/users";
import type { Role, SessionUser } from "@/lib/auth/rbac";
import type { Db } from "@/lib/db";
import { AppError } from "@/lib/runtime/errors";
import { insertUser } from "./create-user";

// A person signing in through OIDC (lib/auth.ts) gets the role of the User row with the same email. Without
// one, a row is created with `defaultRole` (AUTH_OIDC_DEFAULT_ROLE) and its "users.provision" audit row
// (actor "oidc:<issuer>") in one transaction, or — with "none", the default — they are refused: an admin adds
// people first. Refused too: no email, an email the provider does not say is verified (the account is linked
// by email, so an unverified one could be anybody's), a disabled user.

export type OidcProfile = { email?: string | null; name?: string | null; emailVerified?: boolean | null };

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
    // Two first sign-ins at once: the other one made the row.
    if (error instanceof AppError && error.code === "CONFLICT")
      return toSessionUser(await db.user.findUnique({ where: { email }, select: userSelect }));
    throw error;
  }
}
