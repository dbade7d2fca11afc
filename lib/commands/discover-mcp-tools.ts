import { auditChange } from "@/lib/audit/audit-change";
import type { Db } from "@/lib/db";
import { listMcpTools, type McpServerConfig, type McpToolInfo } from "@/lib/tools/registered";

// Listing the tools an MCP server offers, to register them one by one (POST /api/tools/mcp/discover). It
// reaches out (a URL) or starts a command (stdio), so the "tools.mcp_discover" row is written first: an
// attempt is on record even when the server hangs or fails. The row keeps where, never headers or env.

export type DiscoverMcpToolsCommand = { server: McpServerConfig; by: string; via?: string };

export async function discoverMcpTools(deps: { db: Db }, command: DiscoverMcpToolsCommand): Promise<McpToolInfo[]> {
  const { server } = command;
  const where =
    server.transport === "http"
      ? { transport: "http", url: server.url }
      : { transport: "stdio", command: server.command, args: server.args };
  await auditChange(deps.db, command, "tools.mcp_discover", { data: where });
  return listMcpTools(server);
}
