import { assertRoomInQueue } from "@/lib/api/queued-runs";
import { defineRoute } from "@/lib/api/route";
import { getDb } from "@/lib/db";
import { presentRun } from "@/lib/api/present";
import { listRunsQuery, startRunBody } from "@/lib/api/schemas";
import { withIncomingTraceContext } from "@/lib/telemetry/trace-context";

export const dynamic = "force-dynamic";

export const GET = defineRoute({ scope: "runs:read", query: listRunsQuery }, async ({ query, runtime }) => {
  const runs = await runtime.findRuns({ status: query.status ? [query.status] : undefined, agentSlug: query.agent, limit: query.limit, cursor: query.cursor });
  return { runs: runs.map(presentRun), nextCursor: runs.length === query.limit ? runs.at(-1)!.id : null };
});

/**
 * Start a run; the same idempotencyKey returns the same run (201 when created, 200 when it existed); 429 past the agent's queued-run cap.
 * A W3C `traceparent` header becomes the parent of the run's trace (recorded with the run).
 */
export const POST = withIncomingTraceContext(defineRoute({ scope: "runs:write", body: startRunBody }, async ({ body, principal, runtime }) => {
  // A retry with a known idempotency key returns its run even when the queue is full.
  const known = body.idempotencyKey ? await getDb().run.findUnique({ where: { idempotencyKey: body.idempotencyKey }, select: { id: true } }) : null;
  if (!known) await assertRoomInQueue(getDb(), body.agent);
  const { run, created } = await runtime.startRun({ ...body, startedBy: principal.principal });
  return Response.json({ id: run.id, status: run.status, created }, { status: created ? 201 : 200 });
}));
