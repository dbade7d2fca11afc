import { defineRoute } from "@/lib/api/route";
import { startRun } from "@/lib/commands/start-run";
import { presentRun } from "@/lib/api/present";
import { listRunsQuery, startRunBody } from "@/lib/api/schemas";
import { withIncomingTraceContext } from "@/lib/telemetry/trace-context";

export const dynamic = "force-dynamic";

export const GET = defineRoute({ scope: "runs:read", query: listRunsQuery }, async ({ query, runtime }) => {
  const runs = await runtime.findRuns({
    status: query.status ? [query.status] : undefined,
    agentSlug: query.agent,
    limit: query.limit,
    cursor: query.cursor,
  });
  return { runs: runs.map(presentRun), nextCursor: runs.length === query.limit ? runs.at(-1)!.id : null };
});

/**
 * Start a run; the same idempotencyKey returns the same run (201 when created, 200 when it existed); 429 past the agent's queued-run cap.
 * A W3C `traceparent` header becomes the parent of the run's trace (recorded with the run).
 */
export const POST = withIncomingTraceContext(
  defineRoute({ scope: "runs:write", body: startRunBody }, async ({ body, principal, runtime, db }) => {
    const { run, created } = await startRun({ db, runtime }, { ...body, startedBy: principal.principal });
    return Response.json({ id: run.id, status: run.status, created }, { status: created ? 201 : 200 });
  }),
);
