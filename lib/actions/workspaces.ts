"use server";
// Server actions of the admin "Workspaces" page: an instance admin creates a workspace; a workspace's admin adds a
// person to it, changes their role there or takes them out. Each command writes its own audit row in its transaction.
import { defineAction } from "@/lib/actions/define-action";
import type { SessionUser } from "@/lib/auth/rbac";
import { createWorkspaceSchema, createWorkspaceWithDefaults } from "@/lib/commands/create-workspace";
import { memberSchema, putMember } from "@/lib/commands/put-member";
import { removeMember, removeMemberSchema } from "@/lib/commands/remove-member";
import { getRuntime } from "@/lib/runtime.server";
import { AppError } from "@/lib/runtime/errors";

export const createWorkspaceAction = defineAction(
  { schema: createWorkspaceSchema, scope: "admin:manage", audit: { byHandler: true, action: "workspaces.create" } },
  async (input, { user, db, revalidatePath }) => {
    const workspace = await createWorkspaceWithDefaults({ db, runtime: getRuntime() }, input, { by: user.email });
    revalidatePath("/admin/workspaces");
    return workspace;
  },
);

/** The workspace a member action changes: the request's. None (a request outside any) is NOT_FOUND. */
function workspaceIdOf(user: SessionUser): string {
  if (!user.workspace)
    throw new AppError("NOT_FOUND", { message: "no workspace", userMessage: "There is no such workspace." });
  return user.workspace.id;
}

export const putMemberAction = defineAction(
  { schema: memberSchema, scope: "admin:manage", audit: { byHandler: true, action: "workspaces.member" } },
  async (input, { user, db, revalidatePath }) => {
    const member = await putMember({ db }, { workspaceId: workspaceIdOf(user), input, by: user.email });
    revalidatePath("/admin/workspaces");
    return member;
  },
);

export const removeMemberAction = defineAction(
  { schema: removeMemberSchema, scope: "admin:manage", audit: { byHandler: true, action: "workspaces.member.remove" } },
  async (input, { user, db, revalidatePath }) => {
    const removed = await removeMember({ db }, { workspaceId: workspaceIdOf(user), input, by: user.email });
    revalidatePath("/admin/workspaces");
    return removed;
  },
);
