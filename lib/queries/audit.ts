// The audit log as the admin pages show it: the latest admin actions (users.*, tokens.*, tools.*,
// permissions.*), refused attempts included.
import type { AuditRecord } from "@/lib/auth/audit";
import { getDb, type Db } from "@/lib/db";

/** The latest entries whose action starts with one of the prefixes ("users.", "tokens."), newest first. */
export async function findAdminAudit(prefixes: string[], opts: { db?: Db; limit?: number } = {}): Promise<AuditRecord[]> {
  const db = opts.db ?? getDb();
  const limit = opts.limit ?? 20;
  const rows = await db.auditLog.findMany({
    where: { OR: prefixes.map((p) => ({ action: { startsWith: p } })) },
    orderBy: [{ at: "desc" }, { id: "desc" }],
    take: limit,
  });
  return rows.map((r) => ({ ...r, data: safeParse(r.data) }));
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
