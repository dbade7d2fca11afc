import { defineConsoleRoute } from "@/lib/api/console-route";
import { auditExportQuerySchema, exportAuditLog } from "@/lib/audit/export";
import { recordAuditExport } from "@/lib/audit/record-export";
import { getDb } from "@/lib/db";

export const dynamic = "force-dynamic";

/** The audit export for the signed-in admin (the admin audit page's download link); the same export as GET /api/audit. */
export const GET = defineConsoleRoute(
  { scope: "admin:manage", query: auditExportQuerySchema },
  async ({ query, user }) => {
    await recordAuditExport(getDb(), { actor: user.email }, query);
    return exportAuditLog(getDb(), query, { basePath: "/api/console/audit" });
  },
);
