// The signed-in person, for server components, layouts and server actions. The session cookie is
// only a pointer: the user is re-read from the database on every request (once, thanks to React's
// cache), so a disabled user or a changed role takes effect at the next click, not at token expiry.
import { redirect } from "next/navigation";
import { cache } from "react";
import { auth } from "@/lib/auth";
import { SIGN_IN_PATH } from "@/lib/auth/config";
import { getActiveUser } from "@/lib/auth/users";
import { can, type Scope, type SessionUser } from "@/lib/auth/rbac";
import { getDb } from "@/lib/db";

export const getCurrentUser = cache(async (): Promise<SessionUser | null> => {
  const session = await auth();
  const id = session?.user?.id;
  return id ? getActiveUser(getDb(), id) : null;
});

/** For pages and layouts: the user, or a redirect to the sign-in page. */
export async function requirePageUser(): Promise<SessionUser> {
  const user = await getCurrentUser();
  if (!user) redirect(SIGN_IN_PATH);
  return user;
}

/**
 * For pages of one role (e.g. the admin pages): the user and whether they may see it. A page that is
 * not allowed renders <AccessDenied scope=… /> (components/shell/access-denied.tsx) instead of its data
 * — and its actions refuse on their own (defineAction's scope), whatever the page shows.
 */
export async function requirePageScope(scope: Scope): Promise<{ user: SessionUser; isAllowed: boolean }> {
  const user = await requirePageUser();
  return { user, isAllowed: can(user.role, scope) };
}
