// POST /signout: ends the session and goes to the sign-in page. A route handler outside the proxy's
// matcher, not a server action on a console page: the proxy re-issues the session cookie on every
// request it handles, and on a server action's response that fresh cookie would win over the
// sign-out's cleared one (the person would stay signed in). Same-origin posts only.
import { signOut } from "@/lib/auth";
import { SIGN_IN_PATH } from "@/lib/auth/config";

export async function POST(request: Request) {
  const origin = request.headers.get("origin");
  const host = request.headers.get("x-forwarded-host") ?? request.headers.get("host");
  if (origin && host && new URL(origin).host !== host)
    return new Response("Cross-site sign-out refused.", { status: 403 });
  await signOut({ redirect: false }); // clears the session cookie (and audits the sign-out)
  return new Response(null, { status: 303, headers: { Location: SIGN_IN_PATH } });
}
