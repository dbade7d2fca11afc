import { defineRoute } from "@/lib/api/route";
import { presentAgents } from "@/lib/api/present";

export const dynamic = "force-dynamic";

/** Each agent with its input JSON Schema and an example input that works against the demo world. */
export const GET = defineRoute({ scope: "runs:read" }, async () => ({ agents: presentAgents() }));
