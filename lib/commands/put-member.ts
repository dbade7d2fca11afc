import { z } from "zod";
import { auditChange } from "@/lib/audit/audit-log";
import { isRole, ROLES, type Role } from "@/lib/auth/rbac";
import type { Db } from "@/lib/db";
import { AppError, fieldErrorsFromIssues } from "@/lib/runtime/errors";
import { DEFAULT_WORKSPACE_ID, inWorkspace } from "@/lib/runtime/workspace";

// A workspace's admin adding a person to it or changing their role there (the console's "Workspaces" page): the
// membership and its "workspaces.member" audit row (the role) in one transaction. In the default workspace the
// person's User.role follows too (it is their role there when they have no membership).

export const memberSchema = z.object({ email: z.string().trim().toLowerCase().email().max(254), role: z.enum(ROLES) });

/** `input` is {email, role}; `by` the admin's email. */
export type PutMemberCommand = { workspaceId: string; input: unknown; by: string; via?: string };

export async function putMember(deps: { db: Db }, command: PutMemberCommand): Promise<{ email: string; role: Role }> {
  const { workspaceId } = command;
  const parsed = memberSchema.safeParse(command.input);
  if (!parsed.success)
    throw new AppError("INVALID_INPUT", {
      message: "invalid member",
      userMessage: "The member is invalid.",
      fieldErrors: fieldErrorsFromIssues(parsed.error.issues),
    });
  const user = await deps.db.user.findUnique({
    where: { email: parsed.data.email },
    select: { id: true, role: true, disabledAt: true, _count: { select: { memberships: true } } },
  });
  if (!user || user.disabledAt)
    throw new AppError("INVALID_INPUT", {
      message: "no such person",
      userMessage: `No active person has the email ${parsed.data.email}.`,
      fieldErrors: { email: ["No active person has this email."] },
    });
  await deps.db.$transaction(async (tx) => {
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
      auditChange(tx, command, "workspaces.member", { target: parsed.data.email, data: { role: parsed.data.role } }),
    );
  });
  return parsed.data;
}
