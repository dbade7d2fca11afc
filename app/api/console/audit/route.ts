import { defineConsoleRoute } from "@/lib/api/console-route";
import { auditExportQuerySchema, exportAuditLog } from "@/lib/queries/audit-export";
import { recordAuditExport } from "@/lib/commands/record-audit-export";

export const dynamic = "force-dynamic";

/** The audit export for the signed-in admin (the admin audit page's download link); the same export as GET /api/audit. */
export const GET = defineConsoleRoute(
  { scope: "admin:manage", query: auditExportQuerySchema },
  async ({ query, user, db }) => {
    await recordAuditExport(db, { actor: user.email }, query);
    return exportAuditLog(db, query, { basePath: "/api/console/audit" });
  },
);
