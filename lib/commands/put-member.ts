import { z } from "zod";
import { auditChange } from "@/lib/audit/audit-change";
import { isRole, ROLES, type Role } from "@/lib/auth/rbac";
import type { Db } from "@/lib/db";
import { AppError, parseInput } from "@/lib/runtime/errors";
import { DEFAULT_WORKSPACE_ID, inWorkspace } from "@/lib/runtime/workspace";

// A workspace's admin adding a person to it or changing their role there (the console's "Workspaces" page): the
// membership and its "workspaces.member" audit row (the role) in one transaction. In the default workspace the
// person's User.role follows too (it is their role there when they have no membership).

export const memberSchema = z.object({ email: z.string().trim().toLowerCase().email().max(254), role: z.enum(ROLES) });

/** `input` is {email, role}; `by` the admin's email. */
export type PutMemberCommand = { workspaceId: string; input: unknown; by: string; via?: string };

export async function putMember(deps: { db: Db }, command: PutMemberCommand): Promise<{ email: string; role: Role }> {
  const { workspaceId } = command;
  const member = parseInput(memberSchema, command.input, "member");
  const user = await deps.db.user.findUnique({
    where: { email: member.email },
    select: { id: true, role: true, disabledAt: true, _count: { select: { memberships: true } } },
  });
  if (!user || user.disabledAt)
    throw new AppError("INVALID_INPUT", {
      message: "no such person",
      userMessage: `No active person has the email ${member.email}.`,
      fieldErrors: { email: ["No active person has this email."] },
    });
  await deps.db.$transaction(async (tx) => {
    // Someone in the default workspace only by having no membership keeps it explicitly when they join another.
    if (user._count.memberships === 0 && workspaceId !== DEFAULT_WORKSPACE_ID && isRole(user.role)) {
      await tx.membership.create({ data: { userId: user.id, workspaceId: DEFAULT_WORKSPACE_ID, role: user.role } });
    }
    if (workspaceId === DEFAULT_WORKSPACE_ID)
      await tx.user.update({ where: { id: user.id }, data: { role: member.role } });
    await tx.membership.upsert({
      where: { userId_workspaceId: { userId: user.id, workspaceId } },
      create: { userId: user.id, workspaceId, role: member.role },
      update: { role: member.role },
    });
    await inWorkspace(workspaceId, () =>
      auditChange(tx, command, "workspaces.member", { target: member.email, data: { role: member.role } }),
    );
  });
  return member;
}
