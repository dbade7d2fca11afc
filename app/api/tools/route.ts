import { z } from "zod";
import { defineRoute, tokenActor } from "@/lib/api/route";
import { registerTool } from "@/lib/commands/register-tool";
import { listTools } from "@/lib/queries/tools";

export const dynamic = "force-dynamic";

const listToolsQuery = z.object({
  includeDisabled: z
    .enum(["true", "false"])
    .default("false")
    .transform((v) => v === "true"),
});

/** Built-in and registered tools, with capability, effect semantics and input JSON Schema. */
export const GET = defineRoute({ scope: "admin", query: listToolsQuery }, async ({ query, db }) => ({
  tools: await listTools(db, { includeDisabled: query.includeDisabled }),
}));

/** Register an HTTP or MCP tool: 201, 400 with field errors, 409 when the name is taken. */
export const POST = defineRoute({ scope: "admin", body: z.unknown() }, async ({ body, principal, db }) => {
  const tool = await registerTool({ db }, body, tokenActor(principal));
  return Response.json({ tool }, { status: 201 });
});
