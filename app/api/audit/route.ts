import { defineRoute } from "@/lib/api/route";
import { auditExportQuerySchema, exportAuditLog } from "@/lib/queries/audit-export";
import { recordAuditExport } from "@/lib/commands/record-audit-export";

export const dynamic = "force-dynamic";

/**
 * GET /api/audit?since=&until=&actor=&action=&target=&format=jsonl|csv&cursor=&limit= — the audit log,
 * oldest first, streamed; X-Next-Cursor when more entries follow (docs/audit-export.md). Admin tokens only.
 */
export const GET = defineRoute({ scope: "admin", query: auditExportQuerySchema }, async ({ query, principal, db }) => {
  await recordAuditExport(db, { actor: principal.principal, via: `token:${principal.name}` }, query);
  return exportAuditLog(db, query, { basePath: "/api/audit" });
});
