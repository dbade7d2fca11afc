import { parse } from "@/lib/api/route";
import { startRunBody } from "@/lib/api/schemas";
import type { ApiPrincipal } from "@/lib/api/tokens";
import { startRun } from "@/lib/commands/start-run";
import type { Db } from "@/lib/db";
import type { Runtime } from "@/lib/runtime";
import type { z } from "zod";

// What every MCP request acts with: the token's principal (its owner's email, as in the HTTP API), the
// runtime and the database. Built per request: the MCP server keeps nothing between requests.

export type McpContext = { principal: ApiPrincipal; runtime: Runtime; db: Db };

/** Tool arguments through an HTTP API schema: INVALID_INPUT with field errors, as the API answers. */
export const parseArgs = <S extends z.ZodType>(schema: S, value: unknown): z.infer<S> =>
  parse(schema, value, "arguments");

/** start_run's arguments, parsed as POST /api/runs parses its body, through the same command. */
export async function startRunFor(ctx: McpContext, args: unknown) {
  const body = parseArgs(startRunBody, args);
  return startRun(ctx, { ...body, startedBy: ctx.principal.principal });
}
