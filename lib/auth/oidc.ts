// Any OpenID Connect provider, by configuration:
//   AUTH_OIDC_ISSUER   the issuer URL (its /.well-known/openid-configuration is read)
//   AUTH_OIDC_ID       client id          AUTH_OIDC_SECRET  client secret
//   AUTH_OIDC_NAME     the button's label ("Sign in with …"; default "single sign-on")
//   AUTH_OIDC_DEFAULT_ROLE  the role given to a person with no User row yet: none (default: refuse
//                      people an admin has not created), reviewer, operator or admin
// Only an email the provider marks verified (email_verified: true) signs in: accounts link by email.
// The redirect URI to register with the provider: <console URL>/api/auth/callback/oidc
import type { OIDCConfig } from "next-auth/providers";
import type { Env } from "./mode";
import { isRole, type Role } from "./rbac";

export type OidcClaims = { sub: string; email?: string; email_verified?: boolean; name?: string; preferred_username?: string };

export const OIDC_PROVIDER_ID = "oidc";

export function oidcProviderFromEnv(env: Env = process.env): OIDCConfig<OidcClaims> | null {
  if (!env.AUTH_OIDC_ISSUER || !env.AUTH_OIDC_ID) return null;
  return {
    id: OIDC_PROVIDER_ID,
    name: env.AUTH_OIDC_NAME || "single sign-on",
    type: "oidc",
    issuer: env.AUTH_OIDC_ISSUER,
    clientId: env.AUTH_OIDC_ID,
    clientSecret: env.AUTH_OIDC_SECRET,
    checks: ["pkce", "state", "nonce"],
    authorization: { params: { scope: "openid email profile" } },
    profile: (claims) => ({ id: claims.sub, email: claims.email ?? null, name: claims.name ?? claims.preferred_username ?? null }),
  };
}

/** The role of a person the provider knows and Tether does not: "none" (refused) unless configured. */
export function oidcDefaultRole(env: Env = process.env): Role | "none" {
  const value = env.AUTH_OIDC_DEFAULT_ROLE?.trim().toLowerCase();
  if (!value) return "none";
  if (value === "none" || isRole(value)) return value;
  throw new Error(`AUTH_OIDC_DEFAULT_ROLE must be reviewer, operator, admin or none (got "${env.AUTH_OIDC_DEFAULT_ROLE}")`);
}

/** For the sign-in page: the OIDC button's label, or null when no provider is configured. */
export function oidcButtonName(env: Env = process.env): string | null {
  return env.AUTH_OIDC_ISSUER && env.AUTH_OIDC_ID ? env.AUTH_OIDC_NAME || "single sign-on" : null;
}
