// Read model of the admin "Users" page: people, their roles and whether they can sign in.
// The changes an admin makes are lib/auth/user-changes.ts.
import { getDb, type Db } from "@/lib/db";
import { isRole, type Role } from "@/lib/auth/rbac";
import { DEFAULT_WORKSPACE_ID } from "@/lib/runtime/workspace";
import { activeWorkspace } from "@/lib/workspaces/scope";

export type UserRow = {
  id: string;
  email: string;
  name: string | null;
  role: Role;
  createdAt: Date;
  disabledAt: Date | null;
  hasPassword: boolean;
};

const userListSelect = {
  id: true,
  email: true,
  name: true,
  role: true,
  createdAt: true,
  disabledAt: true,
  passwordHash: true,
} as const;

/** Accounts are the deployment's: the default workspace lists them all, another workspace only its own people. */
export async function findUsers(db: Db = getDb()): Promise<UserRow[]> {
  const workspaceId = await activeWorkspace();
  const where =
    workspaceId && workspaceId !== DEFAULT_WORKSPACE_ID ? { memberships: { some: { workspaceId } } } : undefined;
  const rows = await db.user.findMany({
    where,
    select: userListSelect,
    orderBy: [{ disabledAt: { sort: "asc", nulls: "first" } }, { email: "asc" }],
  });
  return rows.map(({ passwordHash, role, ...row }) => ({
    ...row,
    role: isRole(role) ? role : "reviewer",
    hasPassword: passwordHash !== null,
  }));
}
