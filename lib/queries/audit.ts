// The audit log as the admin pages show it: the latest admin actions (users.*, tokens.*, tools.*,
// permissions.*), refused attempts included.
import { toExportEntries, type AuditExportEntry } from "@/lib/audit/entries";
import { auditWhere, encodeAuditCursor, type AuditFilter, type AuditKey } from "@/lib/audit/filter";
import type { AuditRecord } from "@/lib/audit/audit-log";
import { getDb, type Db } from "@/lib/db";

/** The latest entries whose action starts with one of the prefixes ("users.", "tokens."), newest first. */
export async function findAdminAudit(
  prefixes: string[],
  opts: { db?: Db; limit?: number } = {},
): Promise<AuditRecord[]> {
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

// ---- the admin audit page: every entry, newest first, filtered (lib/audit/filter.ts), a page at a time.

export const AUDIT_PAGE_SIZE = 50;

/** A page of entries after `cursor` (older than it), with their before/after, and the cursor of the next page. */
export async function findAuditPage(
  db: Db,
  filter: AuditFilter,
  cursor: AuditKey | undefined,
): Promise<{ entries: AuditExportEntry[]; olderCursor: string | null }> {
  const rows = await db.auditLog.findMany({
    where: auditWhere(filter, { before: cursor }),
    orderBy: [{ at: "desc" }, { id: "desc" }],
    take: AUDIT_PAGE_SIZE + 1,
  });
  const page = rows.slice(0, AUDIT_PAGE_SIZE);
  return {
    entries: await toExportEntries(db, page),
    olderCursor: rows.length > AUDIT_PAGE_SIZE ? encodeAuditCursor(page.at(-1)!) : null,
  };
}
