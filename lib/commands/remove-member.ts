import { z } from "zod";
import { auditChange } from "@/lib/audit/audit-change";
import type { Db } from "@/lib/db";
import { AppError, parseInput } from "@/lib/runtime/errors";
import { DEFAULT_WORKSPACE_ID, inWorkspace } from "@/lib/runtime/workspace";
import { whyNotRemovable } from "@/lib/workspaces/members";

// A workspace's admin taking a person out of it (the console's "Workspaces" page): the membership deleted and its
// "workspaces.member.remove" audit row written in one transaction. From the next request on they cannot open it
// (roleIn reads memberships each time). Refused where it would not take effect or would leave the workspace without
// anyone to run it: an instance admin (they may open every workspace), someone whose only place is the default
// workspace (their account is disabled on the Users page instead), and the workspace's last admin.

export const removeMemberSchema = z.object({ email: z.string().trim().toLowerCase().email().max(254) });

/** `input` is {email}; `by` the admin's email. */
export type RemoveMemberCommand = { workspaceId: string; input: unknown; by: string; via?: string };

export async function removeMember(deps: { db: Db }, command: RemoveMemberCommand): Promise<{ email: string }> {
  const { workspaceId } = command;
  const { email } = parseInput(removeMemberSchema, command.input, "member");
  const user = await deps.db.user.findUnique({
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
  await deps.db.$transaction(async (tx) => {
    if (membership?.role === "admin") {
      const admins = await tx.membership.count({ where: { workspaceId, role: "admin", user: { disabledAt: null } } });
      if (admins <= 1)
        throw new AppError("CONFLICT", {
          message: "last admin",
          userMessage: `${email} is this workspace's last admin: make someone else admin first.`,
        });
    }
    await tx.membership.delete({ where: { userId_workspaceId: { userId: user.id, workspaceId } } });
    await inWorkspace(workspaceId, () => auditChange(tx, command, "workspaces.member.remove", { target: email }));
  });
  return { email };
}
