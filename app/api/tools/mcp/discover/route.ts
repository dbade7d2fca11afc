import { defineRoute } from "@/lib/api/route";
import { discoverMcpToolsSchema, listMcpTools } from "@/lib/tools/registered";

export const dynamic = "force-dynamic";

/** The tools an MCP server offers (name, description, input JSON Schema), to register one by one. */
export const POST = defineRoute({ scope: "admin", body: discoverMcpToolsSchema }, async ({ body }) => ({
  tools: await listMcpTools(body),
}));
