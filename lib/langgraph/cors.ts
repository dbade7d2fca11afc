import { getConfig, type Config } from "@/lib/config";

// The Agent Inbox is a web app on another origin (LangChain's hosted one, or your own): its browser calls
// /api/langgraph directly, so these routes answer CORS for the origins TETHER_LANGGRAPH_CORS_ORIGINS names
// (comma-separated, e.g. https://dev.agentinbox.ai; "*" for any). Unset: no CORS, same origin only.
// Credentials are never allowed: the token travels in a header the page sets (x-api-key), not in a cookie.

function allowedOrigin(request: Request, config: Config): string | null {
  const origin = request.headers.get("origin");
  if (!origin) return null;
  const allowed = config.server.langGraphCorsOrigins;
  return allowed.includes("*") || allowed.includes(origin) ? origin : null;
}

/** The response with CORS headers when the request's origin is allowed (the response is returned either way). */
export function withCors(request: Request, response: Response, config: Config = getConfig()): Response {
  const origin = allowedOrigin(request, config);
  response.headers.append("vary", "origin");
  if (origin) response.headers.set("access-control-allow-origin", origin);
  return response;
}

/** OPTIONS: the browser's preflight, answered without a token (it carries none). Route files export it as OPTIONS. */
export const langGraphPreflight = (request: Request): Response => preflightResponse(request);

export function preflightResponse(request: Request, config: Config = getConfig()): Response {
  const response = new Response(null, { status: 204 });
  if (allowedOrigin(request, config)) {
    response.headers.set("access-control-allow-methods", "GET, POST, OPTIONS");
    response.headers.set("access-control-allow-headers", "content-type, x-api-key, authorization, last-event-id");
    response.headers.set("access-control-max-age", "600");
  }
  return withCors(request, response, config);
}
