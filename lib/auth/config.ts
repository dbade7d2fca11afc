// The part of the Auth.js configuration the proxy needs (proxy.ts): session strategy, pages, the
// secret, and the callbacks that copy id and role between user, token and session. No providers and
// no database here — lib/auth.ts adds them for the route handler and server code.
import type { NextAuthConfig } from "next-auth";
import { getConfig, type Config } from "@/lib/config";
import { isRole, type Role } from "./rbac";
import { resolveAuthSecret } from "./secret";

declare module "next-auth" {
  interface User {
    role?: Role;
  }
  interface Session {
    user: { id: string; email: string; name?: string | null; role: Role };
  }
}

declare module "@auth/core/jwt" {
  interface JWT {
    uid?: string;
    role?: Role;
  }
}

export const SIGN_IN_PATH = "/signin";

/**
 * A callbackUrl we may redirect to after sign-in: a path on this site, never another origin; anything
 * else is `fallback`. Only a single leading "/", and no backslash or control character anywhere:
 * browsers drop tabs and newlines from a URL and read a backslash as "/", so "/<tab>/evil.example"
 * and "/\evil.example" would land on //evil.example, another site.
 */
export function safeCallbackPath(value: unknown, fallback = "/"): string {
  if (typeof value !== "string" || !value.startsWith("/") || value.startsWith("//")) return fallback;
  if (value.includes("\\") || hasControlCharacter(value)) return fallback;
  if (!staysOnThisOrigin(value)) return fallback;
  if (value === SIGN_IN_PATH || value.startsWith(`${SIGN_IN_PATH}?`) || value.startsWith("/api/auth")) return fallback;
  return value;
}

/** Belt and braces: resolved the way a browser resolves it (WHATWG URL), the path keeps our origin. */
function staysOnThisOrigin(path: string): boolean {
  const base = "http://tether.invalid";
  try {
    return new URL(path, base).origin === base;
  } catch {
    return false;
  }
}

function hasControlCharacter(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) return true;
  }
  return false;
}

/**
 * AUTH_TRUST_HOST=true|false wins; unset, the host header is trusted in the embedded mode (one process
 * on your machine) and when AUTH_URL names the public URL. Otherwise Auth.js refuses requests until
 * one of the two is set.
 */
export function trustHostFromEnv(config: Config = getConfig()): boolean {
  return config.auth.trustHost;
}

export function baseAuthConfig(): NextAuthConfig {
  return {
    secret: resolveAuthSecret(),
    trustHost: trustHostFromEnv(),
    session: { strategy: "jwt", maxAge: 7 * 24 * 60 * 60, updateAge: 24 * 60 * 60 },
    pages: { signIn: SIGN_IN_PATH, error: SIGN_IN_PATH },
    providers: [],
    callbacks: {
      // The proxy's gate for console pages: no session → the sign-in page, remembering where to return.
      authorized({ auth, request }) {
        if (auth?.user) return true;
        const back = new URLSearchParams(request.nextUrl.search);
        back.delete("_rsc"); // a client navigation's cache key (the proxy sees the raw URL), not part of where it was going
        const url = request.nextUrl.clone();
        url.pathname = SIGN_IN_PATH;
        url.search = "";
        url.searchParams.set("callbackUrl", request.nextUrl.pathname + (back.size ? `?${back}` : ""));
        return Response.redirect(url);
      },
      jwt({ token, user }) {
        if (user?.id && isRole(user.role)) {
          token.uid = user.id;
          token.role = user.role;
        }
        return token;
      },
      session({ session, token }) {
        // Role and id from the token; server code re-reads the user (lib/auth/session.ts) before trusting them.
        if (token.uid && token.role)
          session.user = { ...session.user, id: token.uid, email: token.email ?? session.user.email, role: token.role };
        return session;
      },
    },
  };
}
