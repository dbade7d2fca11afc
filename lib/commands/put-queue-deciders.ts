import { writeAudit } from "@/lib/audit/audit-log";
import type { Db } from "@/lib/db";
import { queueDecidersSchema, queueNameSchema, type QueueDeciders } from "@/lib/inbox/queue-deciders";
import { AppError, fieldErrorsFromIssues } from "@/lib/runtime/errors";
import { DEFAULT_WORKSPACE_ID } from "@/lib/runtime/workspace";
import { activeWorkspace } from "@/lib/workspaces/scope";

/** Names a queue's deciders (empty lists open it to every decider again); audited in the same transaction. */
export async function putQueueDeciders(
  db: Db,
  opts: { queue: unknown; input: unknown; by: string },
): Promise<QueueDeciders> {
  const name = queueNameSchema.safeParse(opts.queue);
  const parsed = queueDecidersSchema.safeParse(opts.input);
  if (!name.success || !parsed.success) {
    const issues = [
      ...(name.success ? [] : name.error.issues.map((i) => ({ ...i, path: ["queue"] }))),
      ...(parsed.success ? [] : parsed.error.issues),
    ];
    throw new AppError("INVALID_INPUT", {
      message: "invalid queue deciders",
      userMessage: "The queue's deciders are invalid.",
      fieldErrors: fieldErrorsFromIssues(issues),
    });
  }
  const roles = [...new Set(parsed.data.roles)];
  const people = [...new Set(parsed.data.people)];
  const row = await db.$transaction(async (tx) => {
    const saved = await tx.decisionQueue.upsert({
      where: { workspaceId_name: { workspaceId: (await activeWorkspace()) ?? DEFAULT_WORKSPACE_ID, name: name.data } },
      create: { name: name.data, roles: JSON.stringify(roles), people: JSON.stringify(people), updatedBy: opts.by },
      update: { roles: JSON.stringify(roles), people: JSON.stringify(people), updatedBy: opts.by },
    });
    await writeAudit(tx, { actor: opts.by, action: "queues.put", target: name.data, data: { roles, people } });
    return saved;
  });
  return { name: row.name, roles, people, updatedBy: row.updatedBy, updatedAt: row.updatedAt };
}
