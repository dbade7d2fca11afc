import { z } from "zod";
import type { ChangeActor } from "@/lib/audit/audit-change";
import { getDb, type Db } from "@/lib/db";
import { AppError, fieldErrorsFromIssues, isAppError } from "@/lib/runtime/errors";
import { getRuntime } from "@/lib/runtime.server";
import { inWorkspace } from "@/lib/runtime/workspace";
import { BodyRejected, holdsNulCharacter, readJsonBody } from "./body";
import { enforceRateLimit } from "./rate-limit";
import { hasScope, type ApiScope } from "./scopes";
import { authenticateApiToken, type ApiPrincipal } from "./tokens";

// One wrapper makes every API route the same thin shape: authenticate (bearer token) → authorize
// (scope) → parse params, query and body with zod → call one domain function, with the runtime and the
// database the wrapper hands it (app/ holds no client of its own) → JSON. The body is read within the size
// and depth limits of ./body.ts (413, 400). Errors become `{ error: { code, message, fieldErrors? } }` with
// the status from ERROR_HTTP_STATUS; a raw exception message never leaves the server.

type RouteContext = { params: Promise<Record<string, string>> };
type Schema = z.ZodType;

type Handler<P extends Schema, Q extends Schema, B extends Schema> = (input: {
  principal: ApiPrincipal;
  params: z.infer<P>;
  query: z.infer<Q>;
  body: z.infer<B>;
  runtime: ReturnType<typeof getRuntime>;
  /** The console's database, for the domain function the handler calls (app/ holds no client of its own). */
  db: Db;
  /** The request itself (its abort signal ends a long-poll when the client goes away). */
  request: Request;
}) => Promise<Response | unknown>;

/**
 * Options beyond the scope and schemas, for protocol adapters (lib/langgraph): `acceptApiKeyHeader` also takes
 * the token from an `x-api-key` header; `errorResponse` answers errors in the protocol's own shape.
 */
type RouteOptions = { acceptApiKeyHeader?: boolean; errorResponse?: (error: unknown) => Response | Promise<Response> };

export function defineRoute<
  P extends Schema = z.ZodObject,
  Q extends Schema = z.ZodObject,
  B extends Schema = z.ZodUnknown,
>(
  /** scope: the one the token must hold, or a list of which it must hold one; null: no token. */
  opts: { scope: ApiScope | readonly ApiScope[] | null; params?: P; query?: Q; body?: B } & RouteOptions,
  handler: Handler<P, Q, B>,
) {
  const answerError = opts.errorResponse ?? errorResponse;
  return async (request: Request, context: RouteContext): Promise<Response> => {
    try {
      const principal =
        opts.scope === null
          ? anonymous
          : await authenticate(request, opts.scope, { acceptApiKeyHeader: opts.acceptApiKeyHeader });
      const params = parse(opts.params, await context.params, "path");
      const query = parse(opts.query, Object.fromEntries(new URL(request.url).searchParams), "query");
      const body = opts.body ? parse(opts.body, await readJson(request), "body") : (undefined as never);
      // Everything the handler reads or writes is the token's workspace's (lib/workspaces/scope.ts).
      const act = () => handler({ principal, params, query, body, runtime: getRuntime(), db: getDb(), request });
      const result = principal.workspaceId ? await inWorkspace(principal.workspaceId, act) : await act();
      return result instanceof Response ? result : Response.json(result);
    } catch (error) {
      return answerError(error);
    }
  };
}

/** Who a change made through the API is by, for its audit row: the token's owner, through the token (by its name). */
export const tokenActor = (principal: ApiPrincipal): ChangeActor => ({
  by: principal.principal,
  via: `token:${principal.name}`,
});

const anonymous: ApiPrincipal = { tokenId: "", name: "anonymous", scopes: [], principal: "anonymous", workspaceId: "" };

export const bearerToken = (request: Request): string | undefined =>
  /^Bearer\s+(\S+)$/i.exec(request.headers.get("authorization") ?? "")?.[1];

/** The token in an `x-api-key` header (how LangGraph's SDK and the Agent Inbox send theirs). */
const apiKeyHeader = (request: Request): string | undefined => request.headers.get("x-api-key")?.trim() || undefined;

/**
 * The bearer token's principal — holding `scope` (one of them, for a list) unless it is null (the MCP server checks per tool) — within the rate limits.
 * With `acceptApiKeyHeader`, a token in `x-api-key` is taken when there is no bearer token.
 */
export async function authenticate(
  request: Request,
  scope: ApiScope | readonly ApiScope[] | null,
  opts: { acceptApiKeyHeader?: boolean } = {},
): Promise<ApiPrincipal> {
  const bearer = bearerToken(request) ?? (opts.acceptApiKeyHeader ? apiKeyHeader(request) : undefined);
  const principal = bearer ? await authenticateApiToken(getDb(), bearer) : null;
  if (!principal)
    throw new AppError("UNAUTHENTICATED", {
      message: "missing or invalid bearer token",
      userMessage: "Send a valid API token: Authorization: Bearer <token>.",
    });
  const anyOf = scope === null ? [] : typeof scope === "string" ? [scope] : scope;
  if (anyOf.length > 0 && !anyOf.some((s) => hasScope(principal.scopes, s))) {
    const named = anyOf.map((s) => `"${s}"`).join(" or ");
    throw new AppError("FORBIDDEN", {
      message: `token ${principal.name} lacks ${anyOf.join(" or ")}`,
      userMessage: `This token does not have the ${named} scope.`,
    });
  }
  await enforceRateLimit([`token:${principal.tokenId}`, `person:${principal.principal}`]);
  return principal;
}

/** The JSON body within the size and depth limits (lib/api/body.ts); refusals become 413 or 400. */
async function readJson(request: Request): Promise<unknown> {
  try {
    return await readJsonBody(request);
  } catch (error) {
    throw bodyError(error);
  }
}

/** A BodyRejected as the API's AppError (anything else unchanged). */
export function bodyError(error: unknown): unknown {
  if (!(error instanceof BodyRejected)) return error;
  if (error.reason === "too_large")
    return new AppError("PAYLOAD_TOO_LARGE", { message: "body too large", userMessage: error.message });
  if (error.reason === "too_deep")
    return new AppError("INVALID_INPUT", { message: "body nested too deeply", userMessage: error.message });
  return new AppError("INVALID_INPUT", {
    message: "body is not JSON",
    userMessage: "The request body is not valid JSON.",
  });
}

export function parse<S extends Schema | undefined>(schema: S, value: unknown, where: string) {
  if (holdsNulCharacter(value)) {
    throw new AppError("INVALID_INPUT", {
      message: `NUL character in the ${where}`,
      userMessage: `The request ${where} holds a NUL character (\\u0000), which Tether does not store.`,
    });
  }
  if (!schema) return value as never;
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    throw new AppError("INVALID_INPUT", {
      message: `invalid ${where}`,
      userMessage: `The request ${where} is invalid.`,
      fieldErrors: fieldErrorsFromIssues(parsed.error.issues),
    });
  }
  return parsed.data as never;
}

export function errorResponse(error: unknown): Response {
  if (isAppError(error)) {
    const headers =
      error.retryAfterSeconds !== undefined ? { "retry-after": String(error.retryAfterSeconds) } : undefined;
    return Response.json(
      {
        error: {
          code: error.code,
          message: error.userMessage,
          ...(error.fieldErrors ? { fieldErrors: error.fieldErrors } : {}),
        },
      },
      { status: error.httpStatus, headers },
    );
  }
  console.error("[tether] unexpected API error", error);
  return Response.json(
    { error: { code: "INTERNAL", message: "Something went wrong on the server." } },
    { status: 500 },
  );
}
