import type { z } from "zod";
import { defineRoute } from "@/lib/api/route";
import type { ApiScope } from "@/lib/api/scopes";
import { withCors } from "./cors";
import { langGraphErrorResponse } from "./errors";

// The LangGraph routes (app/api/langgraph/**): the HTTP API's defineRoute, with the token also taken from
// `x-api-key` (the LangGraph SDK's header), errors in the protocol's shape, and CORS for the Agent Inbox's
// origin (./cors.ts). Each route file also exports OPTIONS = langGraphPreflight.

type Schema = z.ZodType;

export function defineLangGraphRoute<
  P extends Schema = z.ZodObject,
  Q extends Schema = z.ZodObject,
  B extends Schema = z.ZodUnknown,
>(
  opts: { scope: ApiScope | null; params?: P; query?: Q; body?: B },
  handler: Parameters<typeof defineRoute<P, Q, B>>[1],
) {
  const route = defineRoute<P, Q, B>(
    { ...opts, acceptApiKeyHeader: true, errorResponse: langGraphErrorResponse },
    handler,
  );
  return async (request: Request, context: Parameters<typeof route>[1]): Promise<Response> =>
    withCors(request, await route(request, context));
}
