import { handleMcpPost, methodNotAllowed } from "@/lib/mcp-server/http";

export const dynamic = "force-dynamic";

/** Tether as an MCP server (Streamable HTTP, stateless): the API's tools, runs as tasks, gates as elicitations. See docs/mcp.md. */
export const POST = (request: Request) => handleMcpPost(request);
export const GET = () => methodNotAllowed();
export const DELETE = () => methodNotAllowed();
