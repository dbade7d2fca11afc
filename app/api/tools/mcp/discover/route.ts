import { defineRoute, tokenActor } from "@/lib/api/route";
import { discoverMcpTools } from "@/lib/commands/discover-mcp-tools";
import { discoverMcpToolsSchema } from "@/lib/tools/registered/schemas";

export const dynamic = "force-dynamic";

/** The tools an MCP server offers (name, description, input JSON Schema), to register one by one. Audited before it connects (or starts a command). */
export const POST = defineRoute({ scope: "admin", body: discoverMcpToolsSchema }, async ({ body, principal, db }) => ({
  tools: await discoverMcpTools({ db }, { server: body, ...tokenActor(principal) }),
}));
