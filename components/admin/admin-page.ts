import { requirePageScope } from "@/lib/auth/session";
import type { SessionUser } from "@/lib/auth/rbac";

/**
 * Every admin page starts here: the signed-in person, and whether they hold admin:manage. A page that
 * is not allowed renders <AccessDenied> and reads nothing; its actions refuse on their own anyway.
 */
export async function getAdminPageAccess(): Promise<{ user: SessionUser; isAllowed: boolean }> {
  return requirePageScope("admin:manage");
}
