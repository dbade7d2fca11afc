// Next 16's proxy (formerly middleware; Node.js runtime): every console page needs a session. Without
// one the browser is sent to /signin?callbackUrl=<where it was going>. The console layout checks again
// on the server, and every server action checks the session and its scope (lib/actions).
// Not guarded: /api/* (the HTTP API has its own bearer tokens; /api/auth/* is Auth.js's own), Next's
// static assets, and the sign-in and sign-out paths — those must not even pass through Auth.js here:
// it re-issues the session cookie on every request it sees, which would undo a sign-out.
import NextAuth from "next-auth";
import { NextResponse, type NextFetchEvent, type NextRequest } from "next/server";
import { baseAuthConfig, SIGN_IN_PATH } from "@/lib/auth/config";

const { auth } = NextAuth(() => baseAuthConfig());
// `auth` called with (request, event) is Auth.js's documented proxy (`export { auth as proxy }`): the
// `authorized` callback (lib/auth/config.ts) lets a session through or answers with the redirect.
// (Not `auth(handler)`: with a lazy config that returns a promise of the wrapper, not the wrapper.)
const requireSession = auth as unknown as (request: NextRequest, event: NextFetchEvent) => Promise<Response>;

const PUBLIC_PATHS = new Set([SIGN_IN_PATH, "/signout"]);

export async function proxy(request: NextRequest, event: NextFetchEvent) {
  if (PUBLIC_PATHS.has(request.nextUrl.pathname)) return NextResponse.next();
  const response = await requireSession(request, event);
  // Auth.js re-issues the session cookie on every request it sees. A request still in flight when the
  // person signs out (a link prefetch, say) would then bring the cookie back and undo the sign-out, so
  // the proxy only checks the session and never sets it: the session lasts its maxAge from sign-in.
  response.headers.delete("set-cookie");
  return response;
}

export const config = {
  matcher: ["/((?!api/|_next/static/|_next/image|favicon\\.ico).*)"],
};
