import type { Env } from "@/lib/auth/mode";

// The Agent Inbox is a web app on another origin (LangChain's hosted one, or your own): its browser calls
// /api/langgraph directly, so these routes answer CORS for the origins TETHER_LANGGRAPH_CORS_ORIGINS names
// (comma-separated, e.g. https://dev.agentinbox.ai; "*" for any). Unset: no CORS, same origin only.
// Credentials are never allowed: the token travels in a header the page sets (x-api-key), not in a cookie.

/** TETHER_LANGGRAPH_CORS_ORIGINS as a list of origins (without trailing slashes); "*" allows any. */
export function langGraphCorsOrigins(env: Env = process.env): string[] {
  return (env.TETHER_LANGGRAPH_CORS_ORIGINS ?? "").split(",").map((origin) => origin.trim().replace(/\/+$/, "")).filter(Boolean);
}

function allowedOrigin(request: Request, env: Env): string | null {
  const origin = request.headers.get("origin");
  if (!origin) return null;
  const allowed = langGraphCorsOrigins(env);
  return allowed.includes("*") || allowed.includes(origin) ? origin : null;
}

/** The response with CORS headers when the request's origin is allowed (the response is returned either way). */
export function withCors(request: Request, response: Response, env: Env = process.env): Response {
  const origin = allowedOrigin(request, env);
  response.headers.append("vary", "origin");
  if (origin) response.headers.set("access-control-allow-origin", origin);
  return response;
}

/** OPTIONS: the browser's preflight, answered without a token (it carries none). Route files export it as OPTIONS. */
export const langGraphPreflight = (request: Request): Response => preflightResponse(request);

export function preflightResponse(request: Request, env: Env = process.env): Response {
  const response = new Response(null, { status: 204 });
  if (allowedOrigin(request, env)) {
    response.headers.set("access-control-allow-methods", "GET, POST, OPTIONS");
    response.headers.set("access-control-allow-headers", "content-type, x-api-key, authorization, last-event-id");
    response.headers.set("access-control-max-age", "600");
  }
  return withCors(request, response, env);
}
