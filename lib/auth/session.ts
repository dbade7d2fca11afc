// The signed-in person, for server components, layouts and server actions. The session cookie is
// only a pointer: the user is re-read from the database on every request (once, thanks to React's
// cache), so a disabled user or a changed role takes effect at the next click, not at token expiry.
import { notFound, redirect } from "next/navigation";
import { cache } from "react";
import { auth } from "@/lib/auth";
import { SIGN_IN_PATH } from "@/lib/auth/config";
import { getActiveUser } from "@/lib/auth/users";
import { can, type Scope, type SessionUser } from "@/lib/auth/rbac";
import { getDb } from "@/lib/db";
import { AppError, isAppError } from "@/lib/runtime/errors";
import { roleIn } from "@/lib/workspaces/members";
import { requestWorkspace } from "@/lib/workspaces/request";

/**
 * The person and their role in the request's workspace (lib/workspaces/request.ts). A workspace they are not a
 * member of is NOT_FOUND, as if it did not exist: its name is not confirmed to a stranger.
 */
export const getCurrentUser = cache(async (): Promise<SessionUser | null> => {
  const session = await auth();
  const id = session?.user?.id;
  const db = getDb();
  const person = id ? await getActiveUser(db, id) : null;
  if (!person) return null;
  const workspace = await requestWorkspace();
  if (!workspace) return person;
  const role = await roleIn(db, { userId: person.id }, workspace.id);
  if (!role)
    throw new AppError("NOT_FOUND", {
      message: `${person.email} is not a member of workspace ${workspace.slug}`,
      userMessage: "There is no such workspace.",
    });
  return { ...person, role, workspace };
});

/** For pages and layouts: the user, or a redirect to the sign-in page (a workspace not theirs: 404). */
export async function requirePageUser(): Promise<SessionUser> {
  const user = await getCurrentUser().catch((error: unknown) => {
    if (isAppError(error, "NOT_FOUND")) notFound();
    throw error;
  });
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
