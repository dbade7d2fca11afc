// What the run page says about the whole trace while it holds only a window of it (run-events.ts): how many
// events of each type (the timeline's filter counts), when the first and the last happened, and cost and
// latency per step (the cost summary). Counted by the database, so a run of thousands of events sends a
// few numbers, not its events.
//
// Cost per step comes from what the trace carries: model.decision events hold the model's usage (tokens,
// cost — lib/agents' model policy prices them), tool.call events the call's latency and, when it failed,
// its errorClass. A value that is not a JSON number counts as 0; events of the run itself (step -1) carry
// no cost. Raw SQL because the numbers sit inside the events' JSON: SQLite reads them with json_extract,
// Postgres through jsonb. The engine writes every event's data with JSON.stringify.
import { providerOfDb, type Db } from "@/lib/db";
import { Prisma } from "@/lib/generated/sqlite/client";

export type StepMetrics = {
  step: number;
  modelCalls: number;
  tokens: number;
  costUsd: number;
  toolCalls: number;
  toolLatencyMs: number;
  toolErrors: number;
};

export type TraceSummary = {
  /** Events in the trace (a compacted run has fewer than its last seq). */
  total: number;
  countsByType: Record<string, number>;
  firstAt: string | null;
  lastAt: string | null;
  /** Steps with a model decision or a tool call, in step order. */
  steps: StepMetrics[];
  totals: Omit<StepMetrics, "step">;
};

const METRICS = ["modelCalls", "tokens", "costUsd", "toolCalls", "toolLatencyMs", "toolErrors"] as const;
type MetricsRow = { step: number | bigint } & Record<(typeof METRICS)[number], number | bigint | null>;

function sqliteStepMetrics(runId: string): Prisma.Sql {
  const num = (path: string) =>
    `(CASE WHEN json_type("data", '${path}') IN ('integer', 'real') THEN json_extract("data", '${path}') ELSE 0 END)`;
  return Prisma.sql`
    SELECT "step",
      SUM("type" = 'model.decision') AS "modelCalls",
      SUM(CASE WHEN "type" = 'model.decision' THEN ${Prisma.raw(`${num("$.usage.inputTokens")} + ${num("$.usage.outputTokens")}`)} ELSE 0 END) AS "tokens",
      SUM(CASE WHEN "type" = 'model.decision' THEN ${Prisma.raw(num("$.usage.costUsd"))} ELSE 0 END) AS "costUsd",
      SUM("type" = 'tool.call') AS "toolCalls",
      SUM(CASE WHEN "type" = 'tool.call' THEN ${Prisma.raw(num("$.latencyMs"))} ELSE 0 END) AS "toolLatencyMs",
      SUM("type" = 'tool.call' AND json_type("data", '$.errorClass') = 'text') AS "toolErrors"
    FROM "TraceEvent"
    WHERE "runId" = ${runId} AND "step" >= 0 AND "type" IN ('model.decision', 'tool.call')
    GROUP BY "step" ORDER BY "step"`;
}

function postgresStepMetrics(runId: string): Prisma.Sql {
  const num = (path: string) =>
    `(CASE WHEN jsonb_typeof(d #> '${path}') = 'number' THEN (d #>> '${path}')::float8 ELSE 0 END)`;
  return Prisma.sql`
    SELECT "step",
      COUNT(*) FILTER (WHERE "type" = 'model.decision') AS "modelCalls",
      SUM(CASE WHEN "type" = 'model.decision' THEN ${Prisma.raw(`${num("{usage,inputTokens}")} + ${num("{usage,outputTokens}")}`)} ELSE 0 END) AS "tokens",
      SUM(CASE WHEN "type" = 'model.decision' THEN ${Prisma.raw(num("{usage,costUsd}"))} ELSE 0 END) AS "costUsd",
      COUNT(*) FILTER (WHERE "type" = 'tool.call') AS "toolCalls",
      SUM(CASE WHEN "type" = 'tool.call' THEN ${Prisma.raw(num("{latencyMs}"))} ELSE 0 END) AS "toolLatencyMs",
      COUNT(*) FILTER (WHERE "type" = 'tool.call' AND jsonb_typeof(d -> 'errorClass') = 'string') AS "toolErrors"
    FROM (SELECT "step", "type", "data"::jsonb AS d FROM "TraceEvent"
          WHERE "runId" = ${runId} AND "step" >= 0 AND "type" IN ('model.decision', 'tool.call')) AS cost_events
    GROUP BY "step" ORDER BY "step"`;
}

async function findStepMetrics(db: Db, runId: string): Promise<StepMetrics[]> {
  const sql = providerOfDb(db) === "postgres" ? postgresStepMetrics(runId) : sqliteStepMetrics(runId);
  const rows = await db.$queryRaw<MetricsRow[]>(sql);
  return rows.map(
    (row) =>
      ({ step: Number(row.step), ...Object.fromEntries(METRICS.map((m) => [m, Number(row[m] ?? 0)])) }) as StepMetrics,
  );
}

const sumOf = (steps: StepMetrics[]) =>
  Object.fromEntries(METRICS.map((m) => [m, steps.reduce((sum, s) => sum + s[m], 0)])) as TraceSummary["totals"];

/** The trace's counts and cost of a run (all zero for a run without events). */
export async function findTraceSummary(db: Db, runId: string): Promise<TraceSummary> {
  const types = await db.traceEvent.groupBy({
    by: ["type"],
    where: { runId },
    _count: { _all: true },
    _min: { at: true },
    _max: { at: true },
  });
  // The metrics' raw SQL is not scoped (lib/workspaces/scope.ts): it runs only for a run the scoped read found.
  const steps = types.length > 0 ? await findStepMetrics(db, runId) : [];
  const firsts = types.flatMap((t) => (t._min.at ? [t._min.at.getTime()] : []));
  const lasts = types.flatMap((t) => (t._max.at ? [t._max.at.getTime()] : []));
  return {
    total: types.reduce((sum, t) => sum + t._count._all, 0),
    countsByType: Object.fromEntries(types.map((t) => [t.type, t._count._all])),
    firstAt: firsts.length ? new Date(Math.min(...firsts)).toISOString() : null,
    lastAt: lasts.length ? new Date(Math.max(...lasts)).toISOString() : null,
    steps,
    totals: sumOf(steps),
  };
}
