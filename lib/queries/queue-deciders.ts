import type { Role } from "@/lib/auth/rbac";
import type { Db } from "@/lib/db";
import type { QueueDeciders } from "@/lib/inbox/queue-deciders";

/** Every named queue of the workspace with its deciders (GET /api/queues). */
export async function listQueueDeciders(db: Db): Promise<QueueDeciders[]> {
  const rows = await db.decisionQueue.findMany({ orderBy: { name: "asc" } });
  return rows.map((row) => ({
    name: row.name,
    roles: JSON.parse(row.roles) as Role[],
    people: JSON.parse(row.people) as string[],
    updatedBy: row.updatedBy,
    updatedAt: row.updatedAt,
  }));
}
