// Auth.js (next-auth v5) for the console: email + password out of the box, any OIDC provider by
// configuration (lib/auth/oidc.ts). JWT sessions carry the user's id, email and role; server code
// re-reads the user on every request (lib/auth/session.ts), so disabling a user or changing a role
// takes effect at once. Sign-ins, failed sign-ins and sign-outs go to the audit log.
// The HTTP API does not use this: it has its own bearer tokens (lib/api/tokens.ts).
import NextAuth, { CredentialsSignin } from "next-auth";
import Credentials from "next-auth/providers/credentials";
import { writeAudit } from "@/lib/audit/audit-log";
import { baseAuthConfig } from "@/lib/auth/config";
import { oidcDefaultRole, oidcProviderFromEnv, OIDC_PROVIDER_ID, type OidcClaims } from "@/lib/auth/oidc";
import { authorizeThrottled, signInThrottleFor } from "@/lib/auth/throttle";
import { normalizeEmail } from "@/lib/auth/users";
import { resolveOidcUser } from "@/lib/commands/resolve-oidc-user";
import { getDb } from "@/lib/db";

/** Audit writes from sign-in events must not break signing in; they are logged when they fail. */
const audit = (entry: Parameters<typeof writeAudit>[1]) =>
  writeAudit(getDb(), entry).catch((error: unknown) =>
    console.error("[tether] audit write failed", entry.action, error),
  );

export const { handlers, auth, signIn, signOut } = NextAuth(() => {
  const base = baseAuthConfig();
  const oidc = oidcProviderFromEnv();
  return {
    ...base,
    providers: [
      Credentials({
        id: "credentials",
        name: "Email and password",
        credentials: { email: { label: "Email", type: "email" }, password: { label: "Password", type: "password" } },
        // Throttled per account and per client address (lib/auth/throttle.ts).
        authorize: (credentials, request) =>
          authorizeThrottled(
            { db: getDb(), throttle: signInThrottleFor(getDb()), audit },
            credentials,
            request.headers,
          ),
      }),
      ...(oidc ? [oidc] : []),
    ],
    callbacks: {
      ...base.callbacks,
      async signIn({ user, account, profile }) {
        if (account?.provider !== OIDC_PROVIDER_ID) return true;
        const claims = (profile ?? {}) as Partial<OidcClaims>;
        const resolved = await resolveOidcUser(
          getDb(),
          { email: claims.email ?? user.email, name: claims.name ?? user.name, emailVerified: claims.email_verified },
          { defaultRole: oidcDefaultRole(), issuer: oidc?.issuer },
        );
        if (!resolved) {
          await audit({
            actor: normalizeEmail(claims.email ?? user.email ?? "unknown"),
            action: "auth.signin_failed",
            data: { provider: OIDC_PROVIDER_ID, reason: "not-allowed" },
          });
          return false;
        }
        // The token is built from this same object (base jwt callback): our user's id and role.
        Object.assign(user, { id: resolved.id, email: resolved.email, name: resolved.name, role: resolved.role });
        return true;
      },
    },
    events: {
      async signIn({ user, account }) {
        if (user.email)
          await audit({ actor: user.email, action: "auth.signin", data: { provider: account?.provider ?? "unknown" } });
      },
      async signOut(message) {
        const email = "token" in message ? message.token?.email : undefined;
        if (email) await audit({ actor: email, action: "auth.signout" });
      },
    },
    logger: {
      // A wrong password is not a server error: it is audited instead of logged as one.
      error(error) {
        if (error instanceof CredentialsSignin || (error as { type?: string }).type === "CredentialsSignin") return;
        console.error("[auth]", error);
      },
    },
  };
});
