// Read model of the admin "Workspaces" page: the workspace's people with their role in it, and every workspace
// (for an instance admin, who may create more).
import { isRole, type Role } from "@/lib/auth/rbac";
import { getDb } from "@/lib/db";
import { DEFAULT_WORKSPACE_ID } from "@/lib/runtime/workspace";
import { whyNotRemovable } from "@/lib/workspaces/members";

/** `removable`: whether taking them out would take effect (lib/workspaces/members.ts whyNotRemovable). */
export type WorkspaceMember = {
  email: string;
  name: string | null;
  role: Role;
  instanceAdmin: boolean;
  removable: boolean;
};

/** The active people of a workspace: its members, instance admins, and in the default one those with no membership anywhere (by User.role). */
export async function findWorkspaceMembers(workspaceId: string): Promise<WorkspaceMember[]> {
  const rows = await getDb().user.findMany({
    where: {
      disabledAt: null,
      OR: [
        { instanceAdmin: true },
        { memberships: { some: { workspaceId } } },
        ...(workspaceId === DEFAULT_WORKSPACE_ID ? [{ memberships: { none: {} } }] : []),
      ],
    },
    select: {
      email: true,
      name: true,
      role: true,
      instanceAdmin: true,
      memberships: { select: { workspaceId: true, role: true } },
    },
    orderBy: { email: "asc" },
  });
  return rows.map((row) => {
    const here = row.memberships.find((m) => m.workspaceId === workspaceId);
    const role = row.instanceAdmin ? "admin" : (here?.role ?? row.role);
    const removable = here !== undefined && whyNotRemovable(row, workspaceId) === null;
    return {
      email: row.email,
      name: row.name,
      role: isRole(role) ? role : "reviewer",
      instanceAdmin: row.instanceAdmin,
      removable,
    };
  });
}

export async function findAllWorkspaces(): Promise<
  Array<{ id: string; slug: string; name: string; createdAt: Date; members: number }>
> {
  const rows = await getDb().workspace.findMany({
    orderBy: { createdAt: "asc" },
    select: { id: true, slug: true, name: true, createdAt: true, _count: { select: { members: true } } },
  });
  return rows.map(({ _count, ...row }) => ({ ...row, members: _count.members }));
}

export async function isInstanceAdmin(userId: string): Promise<boolean> {
  return (
    (await getDb().user.findUnique({ where: { id: userId }, select: { instanceAdmin: true } }))?.instanceAdmin ?? false
  );
}
