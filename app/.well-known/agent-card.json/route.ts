import { buildAgentCard } from "@/lib/a2a/agent-card";

export const dynamic = "force-dynamic";

/** The A2A Agent Card: public (discovery needs no token; every call it describes does). */
export function GET(request: Request) {
  return Response.json(buildAgentCard(new URL(request.url).origin), {
    headers: { "cache-control": "public, max-age=300" },
  });
}
