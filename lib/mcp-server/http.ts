import { inWorkspace } from "@/lib/runtime/workspace";
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
import { checkModernRequest, finishModernAnswer, isModernPost, modernErrorStatus } from "./protocol-2026";
import { createTetherMcpServer, SERVER_INFO } from "./server";

// POST /api/mcp: MCP's Streamable HTTP transport, stateless. Every POST is authenticated with the HTTP
// API's bearer tokens (a token acts as its owner; each tool asks for the scope its HTTP route asks for),
// read within the API's body limits, and served by a fresh server and transport, so any process can
// answer any request and nothing is lost with one. Answers are JSON, except tasks/result's: that one
// streams (SSE), so it can carry status notifications and the elicitations of the run's packets.
// There is no session, so GET (a standalone stream) and DELETE (ending a session) are 405.
// Both protocol revisions are served here: 2025-11-25 (and earlier), which starts with initialize, and
// 2026-07-28, whose every request names its version in params._meta (lib/mcp-server/protocol-2026.ts).

/** The token's principal (any scope: each tool checks its own, as its HTTP route does). */
async function authenticateAnyScope(request: Request): Promise<{ principal: ApiPrincipal; token: string }> {
  const principal = await authenticate(request, null);
  return { principal, token: bearerToken(request)! };
}

function refusal(error: unknown): Response {
  const response = errorResponse(error);
  // MCP clients look for the challenge on a 401.
  if (isAppError(error, "UNAUTHENTICATED"))
    response.headers.set("www-authenticate", 'Bearer realm="tether", error="invalid_token"');
  return response;
}

export function methodNotAllowed(): Response {
  return Response.json(
    {
      jsonrpc: "2.0",
      error: {
        code: ErrorCode.ConnectionClosed,
        message: "Method not allowed: this MCP server is stateless; POST JSON-RPC messages to it.",
      },
      id: null,
    },
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
    body = await readJsonBody(request).catch((error: unknown) => {
      throw bodyError(error);
    });
  } catch (error) {
    return refusal(error);
  }
  // Every tool reads and writes within the token's workspace (lib/workspaces/scope.ts).
  return inWorkspace(ctx.principal.workspaceId, () => answerMessages(request, ctx, token, body));
}

async function answerMessages(request: Request, ctx: McpContext, token: string, body: unknown): Promise<Response> {
  const messages = Array.isArray(body) ? body : [body];
  // JSON-RPC: a message is an object, and a batch is not empty.
  if (messages.length === 0 || !messages.every(isMessage)) {
    return Response.json(
      {
        jsonrpc: "2.0",
        error: {
          code: ErrorCode.InvalidRequest,
          message: "Invalid Request: send a JSON-RPC message object, or a non-empty array of them.",
        },
        id: null,
      },
      { status: 400 },
    );
  }
  if (isModernPost(request.headers, messages)) return handleModernPost(request, ctx, token, body);
  try {
    // Answers to our elicitations are decisions; they are handled here, by whichever process receives them.
    for (const answer of messages.filter(isElicitationAnswer)) await handleElicitationAnswer(ctx, answer);
    const rest = messages.filter((m) => !isElicitationAnswer(m));
    if (rest.length === 0) return new Response(null, { status: 202 });

    const streaming = rest.some((m) => m.method === "tasks/result");
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: !streaming,
    });
    const server = createTetherMcpServer(ctx, { signal: request.signal });
    await server.connect(transport);
    const response = await transport.handleRequest(request, {
      parsedBody: Array.isArray(body) ? rest : rest[0],
      authInfo: authInfo(ctx, token),
    });
    // A JSON answer is complete here; a stream closes itself once its last response is written.
    if (!streaming) await server.close();
    return response;
  } catch (error) {
    return refusal(error);
  }
}

const authInfo = (ctx: McpContext, token: string) => ({
  token,
  clientId: ctx.principal.tokenId,
  scopes: ctx.principal.scopes,
  extra: { principal: ctx.principal.principal },
});

const rpcError = (id: unknown, error: { code: number; message: string; data?: unknown }, status: number) =>
  Response.json({ jsonrpc: "2.0", id: id ?? null, error }, { status });

/**
 * A 2026-07-28 POST: one message (the revision has no batches), its headers checked against its body,
 * served by a modern server, its answer finished as the revision wants it (resultType, serverInfo,
 * caching hints; 404 for an unknown method, 400 for the protocol's own errors).
 */
async function handleModernPost(request: Request, ctx: McpContext, token: string, body: unknown): Promise<Response> {
  if (Array.isArray(body))
    return rpcError(
      null,
      {
        code: ErrorCode.InvalidRequest,
        message: "Invalid Request: MCP 2026-07-28 has no batches; send one JSON-RPC message per POST.",
      },
      400,
    );
  const message = body as Message;
  const refused = checkModernRequest(request.headers, message);
  if (refused) return rpcError(message.id, refused.error, refused.status);
  const method = typeof message.method === "string" ? message.method : undefined;
  // 2026-07-28 removed tools/call's `task` parameter: "servers MUST ignore it".
  const parsedBody =
    method === "tools/call" && typeof message.params === "object" && message.params !== null
      ? { ...message, params: withoutKey(message.params as Message, "task") }
      : message;
  // The SDK's transport knows protocol versions up to 2025-11-25 and refuses any other in this header;
  // the version was checked above, so the transport is handed the request without it.
  const headers = new Headers(request.headers);
  headers.delete("mcp-protocol-version");
  headers.delete("content-length"); // the body was read; the transport is handed it parsed
  try {
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    const server = createTetherMcpServer(ctx, { signal: request.signal, era: "modern" });
    await server.connect(transport);
    const response = await transport.handleRequest(
      new Request(request.url, { method: "POST", headers, signal: request.signal }),
      { parsedBody, authInfo: authInfo(ctx, token) },
    );
    await server.close();
    if (!response.headers.get("content-type")?.includes("application/json")) return response;
    const answer = (await response.json()) as Message;
    const errorCode = (answer.error as { code?: number } | undefined)?.code;
    const status = (errorCode !== undefined ? modernErrorStatus(errorCode) : undefined) ?? response.status;
    return Response.json(finishModernAnswer(answer, method, SERVER_INFO), { status });
  } catch (error) {
    return refusal(error);
  }
}

const withoutKey = (object: Message, key: string): Message =>
  Object.fromEntries(Object.entries(object).filter(([k]) => k !== key));

const isMessage = (value: unknown): value is Message =>
  value !== null && typeof value === "object" && !Array.isArray(value);
