import { randomUUID } from "node:crypto";
import { z } from "zod";
import { appAgents } from "@/lib/agents";
import { writeAudit } from "@/lib/audit/audit-log";
import type { Db } from "@/lib/db";
import type { Runtime } from "@/lib/runtime";
import { AppError, parseInput } from "@/lib/runtime/errors";
import { asSystem, inWorkspace } from "@/lib/runtime/workspace";
import { applyDefaultPermissions } from "@/lib/sdk";
import { forgetWorkspaceSlug, type WorkspaceRef } from "@/lib/workspaces/members";

// An instance admin creating a workspace (the console's "Workspaces" page): the workspace, its creator's admin
// membership and its "workspaces.create" audit row (written in the new workspace) in one transaction.

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

/** A new workspace, its creator (`by`, an email) its first admin; only an instance admin may create one. */
export async function createWorkspace(deps: { db: Db }, input: unknown, actor: { by: string }): Promise<WorkspaceRef> {
  const { slug, name } = parseInput(createWorkspaceSchema, input, "workspace");
  const { db } = deps;
  return asSystem(async () => {
    const creator = await db.user.findUnique({ where: { email: actor.by }, select: { id: true, instanceAdmin: true } });
    if (!creator?.instanceAdmin)
      throw new AppError("FORBIDDEN", {
        message: `${actor.by} is not an instance admin`,
        userMessage: "Only an instance admin may create workspaces.",
      });
    const taken = await db.workspace.findUnique({ where: { slug }, select: { id: true } });
    if (taken)
      throw new AppError("CONFLICT", {
        message: "slug taken",
        userMessage: `A workspace called "${slug}" exists already.`,
        fieldErrors: { slug: ["This slug is taken."] },
      });
    const id = `ws_${randomUUID().replaceAll("-", "").slice(0, 20)}`;
    const workspace = await db.$transaction(async (tx) => {
      const created = await tx.workspace.create({
        data: { id, slug, name },
        select: { id: true, slug: true, name: true },
      });
      await tx.membership.create({ data: { userId: creator.id, workspaceId: id, role: "admin" } });
      await inWorkspace(id, () =>
        writeAudit(tx, {
          actor: actor.by,
          action: "workspaces.create",
          target: created.slug,
          data: { name: created.name },
        }),
      );
      return created;
    });
    forgetWorkspaceSlug(workspace.slug);
    return workspace;
  });
}

/**
 * A new workspace starts where the default one started: its creator its first admin, and every agent the deployment
 * runs with the rules its definition declares (its tools and gates), which the workspace's admins then own. The rules
 * are put after the workspace's transaction, each with its own audit row (by "workspaces.create:<creator>").
 */
export async function createWorkspaceWithDefaults(
  deps: { db: Db; runtime: Pick<Runtime, "permissions"> },
  input: unknown,
  actor: { by: string },
): Promise<WorkspaceRef> {
  const workspace = await createWorkspace(deps, input, actor);
  await inWorkspace(workspace.id, async () => {
    for (const agent of appAgents)
      await applyDefaultPermissions(deps.runtime, agent, { by: `workspaces.create:${actor.by}` });
  });
  return workspace;
}
