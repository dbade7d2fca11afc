// Who may use the sandbox world. The sandbox is part of the demo, not of the product's attack surface:
// it exists only when TETHER_SANDBOX is on (lib/auth/mode.ts: on in demo mode by default), and then every
// request needs one of
//   - the internal key (X-Tether-Sandbox-Key, internal-key.ts): what the built-in tools send;
//   - an API token with the `admin` scope (Authorization: Bearer …): admin is the one API scope that
//     covers the world's control routes (reset, fault knobs, planting docs, completing deploys, which
//     delivers a run signal); narrower scopes such as signals:write must not unlock them;
//   - the console session of an admin (role admin, i.e. admin:manage), read only when the request
//     carries a cookie and was not sent by another site (Sec-Fetch-Site), so a page elsewhere cannot
//     use an admin's cookie.
// Off → 404, the answer of a route that does not exist. No credential, or one that is not valid → 401
// `unauthorized`; a valid token or session of someone who is not an admin → 403 `forbidden`.
//
// Every sandbox route handler runs this check through handleSandboxRequest (http.ts), which takes it
// from the request's context (context.ts): under Next.js the gate below; under startSandboxServer
// (plain node:http, for the seed, tests and evals) whatever that server was given — open by default,
// which that server allows on a loopback address only (http-server.ts).
import { isSandboxEnabled } from "@/lib/auth/mode";
import { getConfig, type Config } from "@/lib/config";
import { can, type SessionUser } from "@/lib/auth/rbac";
import { hasScope } from "@/lib/api/scopes";
import { authenticateApiToken } from "@/lib/api/tokens";
import type { Db } from "@/lib/db";
import type { AppError } from "@/lib/runtime/errors";
import { sandboxError } from "./errors";
import { internalSandboxKey, isSameKey, SANDBOX_KEY_HEADER } from "./internal-key";

/** Resolves when the request may use the sandbox; throws the sandbox's error (404, 401, 403: errors.ts) otherwise. */
export type SandboxAccess = (request: Request, db: Db) => Promise<void>;

export type SandboxAccessOptions = {
  /** Read at every request (default getConfig()): TETHER_SANDBOX, TETHER_SANDBOX_SECRET, TETHER_DATA_DIR. */
  config?: () => Config;
  /** The signed-in person of a request with a cookie (default: the console's session, loaded lazily). */
  currentUser?: (request: Request) => Promise<SessionUser | null>;
};

/** No check at all: for startSandboxServer on a loopback address (seed, tests, evals). */
export const openSandboxAccess: SandboxAccess = async () => {};

/** The sandbox's 404 for a path it does not serve (or for every path while it is off). */
export function noSandboxRoute(request: Request): AppError {
  return sandboxError("NOT_FOUND", `No sandbox route for ${request.method} ${new URL(request.url).pathname}.`);
}

export function createSandboxAccess(options: SandboxAccessOptions = {}): SandboxAccess {
  const currentUser = options.currentUser ?? consoleSessionUser;
  return async (request, db) => {
    const config = (options.config ?? getConfig)();
    if (!isSandboxEnabled(config)) throw noSandboxRoute(request);

    const key = request.headers.get(SANDBOX_KEY_HEADER);
    if (key !== null && isSameKey(key, internalSandboxKey(config))) return;

    let isNotAdmin = false; // a valid credential of someone who is not an admin: 403 rather than 401
    const bearer = /^Bearer\s+(\S+)$/i.exec(request.headers.get("authorization") ?? "")?.[1];
    if (bearer) {
      const principal = await authenticateApiToken(db, bearer);
      if (principal && hasScope(principal.scopes, "admin")) return;
      isNotAdmin ||= principal !== null;
    }
    if (request.headers.has("cookie") && !isCrossSite(request)) {
      const user = await currentUser(request);
      if (user && can(user.role, "admin:manage")) return;
      isNotAdmin ||= user !== null;
    }

    if (isNotAdmin)
      throw sandboxError("FORBIDDEN", "The sandbox is for admins: this token or account is not an admin's.");
    throw sandboxError(
      "UNAUTHENTICATED",
      "The sandbox needs a credential: an admin API token (Authorization: Bearer <token>), an admin's console session, or the internal key (X-Tether-Sandbox-Key).",
    );
  };
}

/** The gate of the sandbox served by Next.js. */
export const sandboxAccessFromEnv: SandboxAccess = createSandboxAccess();

/** Sent by another site (a browser says so): its cookies must not act for the person. */
function isCrossSite(request: Request): boolean {
  const site = request.headers.get("sec-fetch-site");
  return site === "cross-site" || site === "same-site";
}

async function consoleSessionUser(): Promise<SessionUser | null> {
  try {
    // Lazily, as lib/api/console-route.ts does: this module must load without Auth.js (node:http, tests).
    const { getCurrentUser } = await import("@/lib/auth/session");
    return await getCurrentUser();
  } catch (error) {
    console.warn(
      "[sandbox] could not read the console session",
      error instanceof Error ? error.message : String(error),
    );
    return null;
  }
}
