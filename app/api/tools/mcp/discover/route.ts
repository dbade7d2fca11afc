import { defineRoute } from "@/lib/api/route";
import { writeAudit } from "@/lib/audit/audit-log";
import { getDb } from "@/lib/db";
import { discoverMcpToolsSchema, listMcpTools } from "@/lib/tools/registered";

export const dynamic = "force-dynamic";

/** The tools an MCP server offers (name, description, input JSON Schema), to register one by one. Audited before it connects (or starts a command). */
export const POST = defineRoute({ scope: "admin", body: discoverMcpToolsSchema }, async ({ body, principal }) => {
  const server = body.transport === "http" ? { transport: "http", url: body.url } : { transport: "stdio", command: body.command, args: body.args };
  await writeAudit(getDb(), { actor: principal.principal, action: "tools.mcp_discover", data: { ...server, via: `token:${principal.name}` } });
  return { tools: await listMcpTools(body) };
});
