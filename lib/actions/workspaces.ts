"use server";
// Server actions of the admin "Workspaces" page: an instance admin creates a workspace; a workspace's admin adds a
// person to it, changes their role there or takes them out. Each command writes its own audit row in its transaction.
import type { z } from "zod";
import { defineAction } from "@/lib/actions/define-action";
import { createWorkspaceSchema, createWorkspaceWithDefaults } from "@/lib/commands/create-workspace";
import { memberSchema, putMember } from "@/lib/commands/put-member";
import { removeMember, removeMemberSchema } from "@/lib/commands/remove-member";
import type { Db } from "@/lib/db";
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

/**
 * A change to the request's workspace's members (putMember, removeMember): a request outside any workspace is
 * NOT_FOUND; the command writes its audit row in its transaction; the Workspaces page is revalidated.
 */
function memberAction<S extends z.ZodType, O>(
  schema: S,
  action: string,
  change: (deps: { db: Db }, command: { workspaceId: string; input: unknown; by: string }) => Promise<O>,
) {
  return defineAction(
    { schema, scope: "admin:manage", audit: { byHandler: true, action } },
    async (input, { user, db, revalidatePath }) => {
      if (!user.workspace)
        throw new AppError("NOT_FOUND", { message: "no workspace", userMessage: "There is no such workspace." });
      const result = await change({ db }, { workspaceId: user.workspace.id, input, by: user.email });
      revalidatePath("/admin/workspaces");
      return result;
    },
  );
}

export const putMemberAction = memberAction(memberSchema, "workspaces.member", putMember);
export const removeMemberAction = memberAction(removeMemberSchema, "workspaces.member.remove", removeMember);
