import { assertRoomInQueue } from "@/lib/api/queued-runs";
import { parse } from "@/lib/api/route";
import { startRunBody } from "@/lib/api/schemas";
import type { ApiPrincipal } from "@/lib/api/tokens";
import type { Db } from "@/lib/db";
import type { Runtime } from "@/lib/runtime";
import type { z } from "zod";

// What every MCP request acts with: the token's principal (its owner's email, as in the HTTP API), the
// runtime and the database. Built per request: the MCP server keeps nothing between requests.

export type McpContext = { principal: ApiPrincipal; runtime: Runtime; db: Db };

/** Tool arguments through an HTTP API schema: INVALID_INPUT with field errors, as the API answers. */
export const parseArgs = <S extends z.ZodType>(schema: S, value: unknown): z.infer<S> => parse(schema, value, "arguments");

/** POST /api/runs, step for step: a known idempotency key returns its run even when the queue is full. */
export async function startRunFor(ctx: McpContext, args: unknown) {
  const body = parseArgs(startRunBody, args);
  const known = body.idempotencyKey ? await ctx.db.run.findUnique({ where: { idempotencyKey: body.idempotencyKey }, select: { id: true } }) : null;
  if (!known) await assertRoomInQueue(ctx.db, body.agent);
  return ctx.runtime.startRun({ ...body, startedBy: ctx.principal.principal });
}
