import { z } from "zod";
import { defineRoute } from "@/lib/api/route";
import { builtInAgents, exampleInputs } from "@/lib/agents";

export const dynamic = "force-dynamic";

/** Each agent with its input JSON Schema and an example input that works against the demo world. */
export const GET = defineRoute({ scope: "runs:read" }, async () => ({
  agents: builtInAgents.map((agent) => ({
    slug: agent.slug,
    name: agent.name,
    version: agent.version,
    description: agent.description,
    tools: agent.tools,
    inputSchema: z.toJSONSchema(agent.input, { unrepresentable: "any" }),
    exampleInput: exampleInputs[agent.slug] ?? null,
  })),
}));
