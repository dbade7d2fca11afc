// Any OpenID Connect provider, by configuration:
//   AUTH_OIDC_ISSUER   the issuer URL (its /.well-known/openid-configuration is read)
//   AUTH_OIDC_ID       client id          AUTH_OIDC_SECRET  client secret
//   AUTH_OIDC_NAME     the button's label ("Sign in with …"; default "single sign-on")
//   AUTH_OIDC_DEFAULT_ROLE  the role given to a person with no User row yet: none (default: refuse
//                      people an admin has not created), reviewer, operator or admin
// Only an email the provider marks verified (email_verified: true) signs in: accounts link by email.
// The redirect URI to register with the provider: <console URL>/api/auth/callback/oidc
import type { OIDCConfig } from "next-auth/providers";
import { getConfig, type Config } from "@/lib/config";
import type { Role } from "./rbac";

export type OidcClaims = {
  sub: string;
  email?: string;
  email_verified?: boolean;
  name?: string;
  preferred_username?: string;
};

export const OIDC_PROVIDER_ID = "oidc";

export function oidcProviderFromEnv(config: Config = getConfig()): OIDCConfig<OidcClaims> | null {
  const oidc = config.auth.oidc;
  if (!oidc) return null;
  return {
    id: OIDC_PROVIDER_ID,
    name: oidc.name,
    type: "oidc",
    issuer: oidc.issuer,
    clientId: oidc.clientId,
    clientSecret: oidc.clientSecret,
    checks: ["pkce", "state", "nonce"],
    authorization: { params: { scope: "openid email profile" } },
    profile: (claims) => ({
      id: claims.sub,
      email: claims.email ?? null,
      name: claims.name ?? claims.preferred_username ?? null,
    }),
  };
}

/** The role of a person the provider knows and Tether does not: "none" (refused) unless configured. */
export function oidcDefaultRole(config: Config = getConfig()): Role | "none" {
  return config.auth.oidcDefaultRole;
}

/** For the sign-in page: the OIDC button's label, or null when no provider is configured. */
export function oidcButtonName(config: Config = getConfig()): string | null {
  return config.auth.oidc?.name ?? null;
}
