import { writeAudit } from "@/lib/audit/audit-log";
import type { Db } from "@/lib/db";
import type { AuditExportQuery } from "@/lib/queries/audit-export";

/** Reading the audit log out is itself audited: who exported which entries, and through what. */
export async function recordAuditExport(
  db: Db,
  who: { actor: string; via?: string },
  query: AuditExportQuery,
): Promise<void> {
  await writeAudit(db, {
    actor: who.actor,
    action: "audit.export",
    data: { ...query, ...(who.via ? { via: who.via } : {}) },
  });
}
