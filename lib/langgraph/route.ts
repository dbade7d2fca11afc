import type { z } from "zod";
import { defineRoute } from "@/lib/api/route";
import type { ApiScope } from "@/lib/api/scopes";
import { langGraphErrorResponse } from "./errors";

// The LangGraph routes (app/api/langgraph/**): the HTTP API's defineRoute, with the token also taken from
// `x-api-key` (the LangGraph SDK's header) and errors in the protocol's shape.

type Schema = z.ZodType;

export function defineLangGraphRoute<P extends Schema = z.ZodObject, Q extends Schema = z.ZodObject, B extends Schema = z.ZodUnknown>(
  opts: { scope: ApiScope | null; params?: P; query?: Q; body?: B },
  handler: Parameters<typeof defineRoute<P, Q, B>>[1],
) {
  return defineRoute<P, Q, B>({ ...opts, acceptApiKeyHeader: true, errorResponse: langGraphErrorResponse }, handler);
}
