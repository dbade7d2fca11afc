// Next 16's proxy (formerly middleware; Node.js runtime): every console page needs a session. Without
// one the browser is sent to /signin?callbackUrl=<where it was going>. The console layout checks again
// on the server, and every server action checks the session and its scope (lib/actions).
// Not guarded: /api/* (the HTTP API has its own bearer tokens; /api/auth/* is Auth.js's own), decision
// links /d/<token> (the signed token is the credential: lib/decision-links; a bad one shows nothing), Next's
// static assets, the A2A agent card, and the sign-in and sign-out paths — those must not even pass through Auth.js here:
// it re-issues the session cookie on every request it sees, which would undo a sign-out.
// A path that is not valid percent-encoding (/api/runs/%E0%A4%A) gets a 400 here, on pages and on
// /api/* alike: past the proxy, Next fails to decode it and answers a bare 500 before any route runs.
// API paths reach the proxy only when they hold a "%" (see the matcher), so a plain API call, and its
// body, never pass through it.
import NextAuth from "next-auth";
import { NextResponse, type NextFetchEvent, type NextRequest } from "next/server";
import { baseAuthConfig, SIGN_IN_PATH } from "@/lib/auth/config";
import { AppError } from "@/lib/runtime/errors";
import { presentSandboxError, sandboxError } from "@/lib/sandbox/errors";
import {
  isWorkspacePage,
  splitWorkspacePath,
  workspacePath,
  WORKSPACE_COOKIE,
  WORKSPACE_HEADER,
} from "@/lib/workspaces/paths";

const { auth } = NextAuth(() => baseAuthConfig());
// `auth` called with (request, event) is Auth.js's documented proxy (`export { auth as proxy }`): the
// `authorized` callback (lib/auth/config.ts) lets a session through or answers with the redirect.
// (Not `auth(handler)`: with a lazy config that returns a promise of the wrapper, not the wrapper.)
const requireSession = auth as unknown as (request: NextRequest, event: NextFetchEvent) => Promise<Response>;

// The A2A agent card is public discovery (A2A 1.0 §8.2): it holds no data, and every call it describes needs a token.
const AGENT_CARD_PATH = "/.well-known/agent-card.json";
const PUBLIC_PATHS = new Set([SIGN_IN_PATH, "/signout", AGENT_CARD_PATH]);
const DECISION_LINK_PREFIX = "/d/";

export async function proxy(request: NextRequest, event: NextFetchEvent) {
  const { pathname } = request.nextUrl;
  if (!isDecodablePath(pathname)) return malformedPathResponse(pathname);
  if (pathname.startsWith("/api/")) return NextResponse.next();
  if (PUBLIC_PATHS.has(pathname) || pathname.startsWith(DECISION_LINK_PREFIX)) return NextResponse.next();
  const response = await requireSession(request, event);
  // Auth.js re-issues the session cookie on every request it sees. A request still in flight when the
  // person signs out (a link prefetch, say) would then bring the cookie back and undo the sign-out, so
  // the proxy only checks the session and never sets it: the session lasts its maxAge from sign-in.
  response.headers.delete("set-cookie");
  return inWorkspace(request, response);
}

/**
 * /w/<slug>/<page> is served by <page>, told its workspace in WORKSPACE_HEADER (a header the browser sent is
 * never trusted: it is replaced, or removed). The page's server actions post to the same URL, so they act in
 * the same workspace. Which workspaces a person may open is checked on the server (lib/auth/session.ts).
 */
function inWorkspace(request: NextRequest, sessionResponse: Response): Response {
  const headers = new Headers(request.headers);
  headers.delete(WORKSPACE_HEADER);
  if (sessionResponse.status >= 300) return sessionResponse; // to sign in first, back to this URL after
  // A console page outside a workspace (an old URL, a link written without one): the same page in the workspace
  // the browser last opened, else the default one.
  if (isWorkspacePage(request.nextUrl.pathname)) {
    const last = request.cookies.get(WORKSPACE_COOKIE)?.value ?? "default";
    const slug = /^[a-z0-9-]+$/.test(last) ? last : "default";
    return NextResponse.redirect(
      new URL(workspacePath(slug, request.nextUrl.pathname) + request.nextUrl.search, request.url),
    );
  }
  const split = splitWorkspacePath(request.nextUrl.pathname);
  if (!split)
    return request.headers.has(WORKSPACE_HEADER) ? NextResponse.next({ request: { headers } }) : sessionResponse;
  headers.set(WORKSPACE_HEADER, split.slug);
  const target = new URL(split.rest + request.nextUrl.search, request.url);
  const rewritten = NextResponse.rewrite(target, { request: { headers } });
  // Remembered only when it changes, and only on a page load: a Set-Cookie on a server action's answer makes Next
  // render the page again, which would replace what the action answered (its error, say).
  if (request.method === "GET" && request.cookies.get(WORKSPACE_COOKIE)?.value !== split.slug) {
    rewritten.cookies.set(WORKSPACE_COOKIE, split.slug, { path: "/", sameSite: "lax", httpOnly: true });
  }
  return rewritten;
}

function isDecodablePath(pathname: string): boolean {
  try {
    decodeURIComponent(pathname);
    return true;
  } catch {
    return false;
  }
}

/** 400 in the error shape of whoever owns the path: the sandbox's, the HTTP API's, or plain text for a page. */
function malformedPathResponse(pathname: string): Response {
  const message = "The request path is not valid percent-encoding.";
  if (pathname.startsWith("/api/sandbox/")) {
    const { body, status } = presentSandboxError(sandboxError("INVALID_INPUT", message))!;
    return Response.json(body, { status });
  }
  if (pathname.startsWith("/api/")) {
    const error = new AppError("INVALID_INPUT", {
      message: "malformed percent-encoding in the path",
      userMessage: message,
    });
    return Response.json({ error: { code: error.code, message: error.userMessage } }, { status: error.httpStatus });
  }
  return new Response(`Bad request: ${message}\n`, {
    status: 400,
    headers: { "content-type": "text/plain; charset=utf-8" },
  });
}

export const config = {
  // Every page, and the API paths holding a "%" (only to answer a malformed one; see above).
  matcher: ["/((?!api/|_next/static/|_next/image|favicon\\.ico).*)", "/api/:path(.*%.*)"],
};
