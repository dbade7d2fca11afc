// Workspaces and who belongs to them. A person's role in a workspace is their Membership's there. A person with no
// membership at all (everyone from before workspaces, and people created in the default workspace) is in the default
// workspace with their User.role; a person created in another workspace is in that one only. An instance admin is an admin in
// every workspace and may create workspaces. Lookups by slug are cached briefly in the process:
// a slug names the same workspace for its whole life (workspaces are created, not renamed).
import { randomUUID } from "node:crypto";
import { z } from "zod";
import { writeAudit } from "@/lib/audit/audit-log";
import { isRole, ROLES, type Role } from "@/lib/auth/rbac";
import type { Db } from "@/lib/db";
import { AppError, fieldErrorsFromIssues } from "@/lib/runtime/errors";
import { asSystem, DEFAULT_WORKSPACE_ID, inWorkspace } from "@/lib/runtime/workspace";

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

export const createWorkspaceSchema = z.object({
  slug: z
    .string()
    .trim()
    .toLowerCase()
    .regex(
      /^[a-z0-9](?:[a-z0-9-]{0,38}[a-z0-9])?$/,
      "Use 1–40 lower-case letters, digits and dashes, starting and ending with a letter or digit.",
    ),
  name: z.string().trim().min(1).max(100),
});

/** A new workspace, its creator its first admin; only an instance admin may create one. */
export async function createWorkspace(db: Db, input: unknown, opts: { by: string }): Promise<WorkspaceRef> {
  const parsed = createWorkspaceSchema.safeParse(input);
  if (!parsed.success)
    throw new AppError("INVALID_INPUT", {
      message: "invalid workspace",
      userMessage: "The workspace is invalid.",
      fieldErrors: fieldErrorsFromIssues(parsed.error.issues),
    });
  return asSystem(async () => {
    const creator = await db.user.findUnique({ where: { email: opts.by }, select: { id: true, instanceAdmin: true } });
    if (!creator?.instanceAdmin)
      throw new AppError("FORBIDDEN", {
        message: `${opts.by} is not an instance admin`,
        userMessage: "Only an instance admin may create workspaces.",
      });
    const taken = await db.workspace.findUnique({ where: { slug: parsed.data.slug }, select: { id: true } });
    if (taken)
      throw new AppError("CONFLICT", {
        message: "slug taken",
        userMessage: `A workspace called "${parsed.data.slug}" exists already.`,
        fieldErrors: { slug: ["This slug is taken."] },
      });
    const id = `ws_${randomUUID().replaceAll("-", "").slice(0, 20)}`;
    const workspace = await db.$transaction(async (tx) => {
      const created = await tx.workspace.create({
        data: { id, slug: parsed.data.slug, name: parsed.data.name },
        select: { id: true, slug: true, name: true },
      });
      await tx.membership.create({ data: { userId: creator.id, workspaceId: id, role: "admin" } });
      await inWorkspace(id, () =>
        writeAudit(tx, {
          actor: opts.by,
          action: "workspaces.create",
          target: created.slug,
          data: { name: created.name },
        }),
      );
      return created;
    });
    bySlug.delete(workspace.slug);
    return workspace;
  });
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

export const memberSchema = z.object({ email: z.string().trim().toLowerCase().email().max(254), role: z.enum(ROLES) });

/** Adds a person to the workspace, or changes their role there. */
export async function putMember(
  db: Db,
  workspaceId: string,
  input: unknown,
  opts: { by: string },
): Promise<{ email: string; role: Role }> {
  const parsed = memberSchema.safeParse(input);
  if (!parsed.success)
    throw new AppError("INVALID_INPUT", {
      message: "invalid member",
      userMessage: "The member is invalid.",
      fieldErrors: fieldErrorsFromIssues(parsed.error.issues),
    });
  const user = await db.user.findUnique({
    where: { email: parsed.data.email },
    select: { id: true, role: true, disabledAt: true, _count: { select: { memberships: true } } },
  });
  if (!user || user.disabledAt)
    throw new AppError("INVALID_INPUT", {
      message: "no such person",
      userMessage: `No active person has the email ${parsed.data.email}.`,
      fieldErrors: { email: ["No active person has this email."] },
    });
  await db.$transaction(async (tx) => {
    // Someone in the default workspace only by having no membership keeps it explicitly when they join another.
    if (user._count.memberships === 0 && workspaceId !== DEFAULT_WORKSPACE_ID && isRole(user.role)) {
      await tx.membership.create({ data: { userId: user.id, workspaceId: DEFAULT_WORKSPACE_ID, role: user.role } });
    }
    if (workspaceId === DEFAULT_WORKSPACE_ID)
      await tx.user.update({ where: { id: user.id }, data: { role: parsed.data.role } });
    await tx.membership.upsert({
      where: { userId_workspaceId: { userId: user.id, workspaceId } },
      create: { userId: user.id, workspaceId, role: parsed.data.role },
      update: { role: parsed.data.role },
    });
    await inWorkspace(workspaceId, () =>
      writeAudit(tx, {
        actor: opts.by,
        action: "workspaces.member",
        target: parsed.data.email,
        data: { role: parsed.data.role },
      }),
    );
  });
  return parsed.data;
}

/**
 * Why taking a member out of the workspace would not take effect, or null when it would. (The last admin is
 * checked in removeMember's transaction: it needs the other members.)
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

export const removeMemberSchema = z.object({ email: z.string().trim().toLowerCase().email().max(254) });

/**
 * Takes a person out of the workspace: from the next request on they cannot open it (roleIn reads memberships each
 * time). Refused where it would not take effect or would leave the workspace without anyone to run it: an instance
 * admin (they may open every workspace), someone whose only place is the default workspace (their account is
 * disabled on the Users page instead), and the workspace's last admin.
 */
export async function removeMember(
  db: Db,
  workspaceId: string,
  input: unknown,
  opts: { by: string },
): Promise<{ email: string }> {
  const parsed = removeMemberSchema.safeParse(input);
  if (!parsed.success)
    throw new AppError("INVALID_INPUT", {
      message: "invalid member",
      userMessage: "The member is invalid.",
      fieldErrors: fieldErrorsFromIssues(parsed.error.issues),
    });
  const { email } = parsed.data;
  const user = await db.user.findUnique({
    where: { email },
    select: { id: true, instanceAdmin: true, memberships: { select: { workspaceId: true, role: true } } },
  });
  const membership = user?.memberships.find((m) => m.workspaceId === workspaceId);
  const implicitlyInDefault = workspaceId === DEFAULT_WORKSPACE_ID && user?.memberships.length === 0;
  if (!user || (!membership && !implicitlyInDefault)) {
    throw new AppError("NOT_FOUND", {
      message: `${email} is not a member`,
      userMessage: `${email} is not a member of this workspace.`,
    });
  }
  const refusal = whyNotRemovable(user, workspaceId);
  if (refusal) throw new AppError("CONFLICT", { message: refusal, userMessage: `${email} ${refusal}.` });
  await db.$transaction(async (tx) => {
    if (membership?.role === "admin") {
      const admins = await tx.membership.count({ where: { workspaceId, role: "admin", user: { disabledAt: null } } });
      if (admins <= 1)
        throw new AppError("CONFLICT", {
          message: "last admin",
          userMessage: `${email} is this workspace's last admin: make someone else admin first.`,
        });
    }
    await tx.membership.delete({ where: { userId_workspaceId: { userId: user.id, workspaceId } } });
    await inWorkspace(workspaceId, () =>
      writeAudit(tx, { actor: opts.by, action: "workspaces.member.remove", target: email, data: {} }),
    );
  });
  return { email };
}
