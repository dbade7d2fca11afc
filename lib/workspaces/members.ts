// Workspaces and who belongs to them. A person's role in a workspace is their Membership's there. A person with no
// membership at all (everyone from before workspaces, and people created in the default workspace) is in the default
// workspace with their User.role; a person created in another workspace is in that one only. An instance admin is an admin in
// every workspace and may create workspaces. Lookups by slug are cached briefly in the process:
// a slug names the same workspace for its whole life (workspaces are created, not renamed).
// The changes (creating a workspace, putting and removing members) are lib/commands/{create-workspace,put-member,remove-member}.ts.
import { isRole, type Role } from "@/lib/auth/rbac";
import type { Db } from "@/lib/db";
import { AppError } from "@/lib/runtime/errors";
import { DEFAULT_WORKSPACE_ID } from "@/lib/runtime/workspace";

export type WorkspaceRef = { id: string; slug: string; name: string };

const bySlug = new Map<string, { workspace: WorkspaceRef | null; at: number }>();
const CACHE_MS = 30_000;

export async function findWorkspaceBySlug(db: Db, slug: string): Promise<WorkspaceRef | null> {
  const hit = bySlug.get(slug);
  if (hit && Date.now() - hit.at < CACHE_MS && hit.workspace) return hit.workspace;
  const workspace = await db.workspace.findUnique({ where: { slug }, select: { id: true, slug: true, name: true } });
  bySlug.set(slug, { workspace, at: Date.now() });
  return workspace;
}

/** A new workspace's slug is looked up afresh (lib/commands/create-workspace.ts). */
export function forgetWorkspaceSlug(slug: string): void {
  bySlug.delete(slug);
}

export async function findWorkspace(db: Db, id: string): Promise<WorkspaceRef | null> {
  return db.workspace.findUnique({ where: { id }, select: { id: true, slug: true, name: true } });
}

/** The person's role in the workspace: their membership's, admin for an instance admin, null for a stranger. */
export async function roleIn(
  db: Db,
  who: { userId: string } | { email: string },
  workspaceId: string,
): Promise<Role | null> {
  const user = await db.user.findUnique({
    where: "userId" in who ? { id: who.userId } : { email: who.email },
    select: {
      role: true,
      instanceAdmin: true,
      disabledAt: true,
      memberships: { select: { workspaceId: true, role: true } },
    },
  });
  if (!user || user.disabledAt) return null;
  if (user.instanceAdmin) return "admin";
  const role = roleFrom(user, workspaceId);
  return isRole(role) ? role : null;
}

/** A membership's role, else User.role in the default workspace for a person who has no membership anywhere. */
function roleFrom(
  user: { role: string; memberships: Array<{ workspaceId: string; role: string }> },
  workspaceId: string,
): string | undefined {
  const own = user.memberships.find((m) => m.workspaceId === workspaceId)?.role;
  return own ?? (workspaceId === DEFAULT_WORKSPACE_ID && user.memberships.length === 0 ? user.role : undefined);
}

/** The workspaces a person may open (all of them for an instance admin), by name. */
export async function workspacesOf(db: Db, userId: string): Promise<Array<WorkspaceRef & { role: Role }>> {
  const user = await db.user.findUnique({
    where: { id: userId },
    select: { role: true, instanceAdmin: true, memberships: { select: { role: true, workspace: true } } },
  });
  if (!user) return [];
  if (user.instanceAdmin) {
    const all = await db.workspace.findMany({ orderBy: { name: "asc" }, select: { id: true, slug: true, name: true } });
    return all.map((w) => ({ ...w, role: "admin" as Role }));
  }
  const standing = user.memberships.length === 0 ? await findWorkspace(db, DEFAULT_WORKSPACE_ID) : null;
  return [
    ...(standing ? [{ ...standing, role: user.role }] : []),
    ...user.memberships.map((m) => ({ ...m.workspace, role: m.role })),
  ]
    .filter((m): m is typeof m & { role: Role } => isRole(m.role))
    .map((m) => ({ id: m.id, slug: m.slug, name: m.name, role: m.role }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** The person in the workspace a request names by its slug (their role there); NOT_FOUND when it is not theirs. */
export async function personInWorkspace<U extends { id: string }>(
  db: Db,
  user: U,
  slug: string,
): Promise<U & { role: Role; workspace: WorkspaceRef }> {
  const workspace = await findWorkspaceBySlug(db, slug);
  const role = workspace ? await roleIn(db, { userId: user.id }, workspace.id) : null;
  if (!workspace || !role)
    throw new AppError("NOT_FOUND", {
      message: `not a member of workspace ${slug}`,
      userMessage: "There is no such workspace.",
    });
  return { ...user, role, workspace };
}

/**
 * People's accounts (creating one, its default role, disabling it) are the deployment's, not a workspace's: only an
 * admin of the default workspace or an instance admin changes them. An admin of another workspace manages roles
 * there (putMember), never an account: they could otherwise raise their own role in the default workspace.
 */
export async function requireAccountAdmin(db: Db, user: { id: string; workspace?: { id: string } }): Promise<void> {
  if (!user.workspace || user.workspace.id === DEFAULT_WORKSPACE_ID) return;
  const row = await db.user.findUnique({ where: { id: user.id }, select: { instanceAdmin: true } });
  if (!row?.instanceAdmin) {
    throw new AppError("FORBIDDEN", {
      message: "account change outside the default workspace",
      userMessage: "People's accounts are managed in the default workspace; here, add them on the Workspaces page.",
    });
  }
}

/**
 * Why taking a member out of the workspace would not take effect, or null when it would. (The last admin is
 * checked in lib/commands/remove-member.ts's transaction: it needs the other members.)
 */
export function whyNotRemovable(
  user: { instanceAdmin: boolean; memberships: Array<{ workspaceId: string }> },
  workspaceId: string,
): string | null {
  if (user.instanceAdmin) return "is an instance admin and may open every workspace";
  if (workspaceId === DEFAULT_WORKSPACE_ID && user.memberships.every((m) => m.workspaceId === DEFAULT_WORKSPACE_ID)) {
    return "is in no workspace but the default one: disable their account on the Users page instead";
  }
  return null;
}
