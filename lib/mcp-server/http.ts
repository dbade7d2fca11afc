import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { ErrorCode } from "@modelcontextprotocol/sdk/types.js";
import { readJsonBody } from "@/lib/api/body";
import { authenticate, bearerToken, bodyError, errorResponse } from "@/lib/api/route";
import type { ApiPrincipal } from "@/lib/api/tokens";
import { getDb } from "@/lib/db";
import { isAppError } from "@/lib/runtime/errors";
import { getRuntime } from "@/lib/runtime.server";
import type { McpContext } from "./context";
import { handleElicitationAnswer, isElicitationAnswer } from "./elicitation";
import { createTetherMcpServer } from "./server";

// POST /api/mcp: MCP's Streamable HTTP transport, stateless. Every POST is authenticated with the HTTP
// API's bearer tokens (a token acts as its owner; each tool asks for the scope its HTTP route asks for),
// read within the API's body limits, and served by a fresh server and transport, so any process can
// answer any request and nothing is lost with one. Answers are JSON, except tasks/result's: that one
// streams (SSE), so it can carry status notifications and the elicitations of the run's packets.
// There is no session, so GET (a standalone stream) and DELETE (ending a session) are 405.

/** The token's principal (any scope: each tool checks its own, as its HTTP route does). */
async function authenticateAnyScope(request: Request): Promise<{ principal: ApiPrincipal; token: string }> {
  const principal = await authenticate(request, null);
  return { principal, token: bearerToken(request)! };
}

function refusal(error: unknown): Response {
  const response = errorResponse(error);
  // MCP clients look for the challenge on a 401.
  if (isAppError(error, "UNAUTHENTICATED")) response.headers.set("www-authenticate", 'Bearer realm="tether", error="invalid_token"');
  return response;
}

export function methodNotAllowed(): Response {
  return Response.json(
    { jsonrpc: "2.0", error: { code: ErrorCode.ConnectionClosed, message: "Method not allowed: this MCP server is stateless; POST JSON-RPC messages to it." }, id: null },
    { status: 405, headers: { allow: "POST" } },
  );
}

type Message = Record<string, unknown>;

export async function handleMcpPost(request: Request): Promise<Response> {
  let ctx: McpContext;
  let token: string;
  let body: unknown;
  try {
    const auth = await authenticateAnyScope(request);
    token = auth.token;
    ctx = { principal: auth.principal, runtime: getRuntime(), db: getDb() };
    body = await readJsonBody(request).catch((error: unknown) => { throw bodyError(error); });
  } catch (error) {
    return refusal(error);
  }
  const messages = Array.isArray(body) ? body : [body];
  // JSON-RPC: a message is an object, and a batch is not empty.
  if (messages.length === 0 || !messages.every(isMessage)) {
    return Response.json({ jsonrpc: "2.0", error: { code: ErrorCode.InvalidRequest, message: "Invalid Request: send a JSON-RPC message object, or a non-empty array of them." }, id: null }, { status: 400 });
  }
  try {
    // Answers to our elicitations are decisions; they are handled here, by whichever process receives them.
    for (const answer of messages.filter(isElicitationAnswer)) await handleElicitationAnswer(ctx, answer);
    const rest = messages.filter((m) => !isElicitationAnswer(m));
    if (rest.length === 0) return new Response(null, { status: 202 });

    const streaming = rest.some((m) => m.method === "tasks/result");
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: !streaming });
    const server = createTetherMcpServer(ctx, { signal: request.signal });
    await server.connect(transport);
    const response = await transport.handleRequest(request, {
      parsedBody: Array.isArray(body) ? rest : rest[0],
      authInfo: { token, clientId: ctx.principal.tokenId, scopes: ctx.principal.scopes, extra: { principal: ctx.principal.principal } },
    });
    // A JSON answer is complete here; a stream closes itself once its last response is written.
    if (!streaming) await server.close();
    return response;
  } catch (error) {
    return refusal(error);
  }
}

const isMessage = (value: unknown): value is Message => value !== null && typeof value === "object" && !Array.isArray(value);
