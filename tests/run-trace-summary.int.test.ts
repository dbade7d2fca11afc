import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { computeStepMetrics } from "./support/step-metrics-oracle";
import { createDb, type Db } from "../lib/db";
import type { TimelineEvent } from "../lib/queries/run-events";
import { findTraceSummary } from "../lib/queries/run-trace-summary";
import { providers, uid } from "./support/runtime";

// The trace in numbers (the run page's filter counts and cost summary), counted by each database from the
// events' JSON. Held to computeStepMetrics, the in-memory reading of the same events the page used when it
// held the whole trace: both must tell the same story.

const events: TimelineEvent[] = [
  { seq: 1, step: -1, type: "run.created", at: "2030-01-01T00:00:00.000Z", data: {} },
  {
    seq: 2,
    step: 0,
    type: "model.decision",
    at: "2030-01-01T00:00:01.000Z",
    data: { usage: { inputTokens: 120, outputTokens: 30, costUsd: 0.0015 } },
  },
  { seq: 3, step: 0, type: "tool.call", at: "2030-01-01T00:00:02.000Z", data: { tool: "orders.get", latencyMs: 41 } },
  {
    seq: 4,
    step: 0,
    type: "tool.call",
    at: "2030-01-01T00:00:03.000Z",
    data: { tool: "payments.refund", latencyMs: 900.5, errorClass: "timeout" },
  },
  { seq: 5, step: 1, type: "model.decision", at: "2030-01-01T00:00:04.000Z", data: { usage: null } },
  // values that are not JSON numbers count as nothing
  {
    seq: 6,
    step: 1,
    type: "model.decision",
    at: "2030-01-01T00:00:05.000Z",
    data: { usage: { inputTokens: "12", outputTokens: 8, costUsd: true } },
  },
  { seq: 7, step: 1, type: "tool.call", at: "2030-01-01T00:00:06.000Z", data: { latencyMs: "slow" } },
  { seq: 8, step: 2, type: "permission.checked", at: "2030-01-01T00:00:07.000Z", data: { tool: "x", effect: "allow" } },
  {
    seq: 9,
    step: -1,
    type: "model.decision",
    at: "2030-01-01T00:00:08.000Z",
    data: { usage: { inputTokens: 5, outputTokens: 5, costUsd: 1 } },
  },
];

describe.each(providers())("trace summary [%s]", (_provider, url) => {
  let db: Db;
  const runId = uid("run_summary");
  beforeAll(async () => {
    db = createDb(url);
    await db.run.create({
      data: {
        id: runId,
        agentSlug: "summary-agent",
        agentVersion: "1",
        status: "COMPLETED",
        input: "{}",
        state: "{}",
        eventSeq: events.length,
      },
    });
    await db.traceEvent.createMany({
      data: events.map((e) => ({
        runId,
        seq: e.seq,
        step: e.step,
        type: e.type,
        data: JSON.stringify(e.data),
        at: new Date(e.at),
      })),
    });
  });
  afterAll(async () => {
    await db.run.delete({ where: { id: runId } });
    await db.$disconnect();
  });

  it("counts per type, first and last event, and cost per step as the in-memory reading does", async () => {
    const summary = await findTraceSummary(db, runId);
    const expected = computeStepMetrics(events);
    expect(summary.steps).toEqual(expected.steps.map((s) => ({ ...s, costUsd: expect.closeTo(s.costUsd, 10) })));
    expect(summary.totals).toEqual({ ...expected.totals, costUsd: expect.closeTo(expected.totals.costUsd, 10) });
    expect(summary).toMatchObject({
      total: 9,
      countsByType: { "run.created": 1, "model.decision": 4, "tool.call": 3, "permission.checked": 1 },
      firstAt: "2030-01-01T00:00:00.000Z",
      lastAt: "2030-01-01T00:00:08.000Z",
    });
  });

  it("a run without events: nothing", async () => {
    expect(await findTraceSummary(db, uid("run_none"))).toEqual({
      total: 0,
      countsByType: {},
      firstAt: null,
      lastAt: null,
      steps: [],
      totals: { modelCalls: 0, tokens: 0, costUsd: 0, toolCalls: 0, toolLatencyMs: 0, toolErrors: 0 },
    });
  });
});
