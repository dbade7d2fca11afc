import { describe, expect, it } from "vitest";
import { computeStepMetrics } from "./support/step-metrics-oracle";
import { diffJson, formatPath } from "../components/runs/state-diff/json-diff";
import {
  ALL_KINDS,
  buildTimelineRows,
  filterEvents,
  formatDuration,
  kindOf,
  summarizeEvent,
} from "../components/runs/timeline/trace-model";
import type { TimelineEvent } from "../lib/queries/run-events";

const t0 = Date.parse("2026-01-05T10:00:00Z");
let seq = 0;
function buildEvent(overrides: Partial<TimelineEvent> & { offsetMs?: number } = {}): TimelineEvent {
  const { offsetMs = 0, ...rest } = overrides;
  seq += 1;
  return { seq, step: 0, type: "run.status", at: new Date(t0 + offsetMs).toISOString(), data: {}, ...rest };
}

describe("kindOf", () => {
  it("sorts every event type the engine writes into one kind", () => {
    expect(kindOf("model.decision")).toBe("model");
    expect(kindOf("policy.error")).toBe("model");
    expect(kindOf("tool.call")).toBe("tool");
    expect(kindOf("effect.intent")).toBe("tool");
    expect(kindOf("permission.checked")).toBe("permission");
    expect(kindOf("gate.requested")).toBe("gate");
    expect(kindOf("evidence.rechecked")).toBe("gate");
    expect(kindOf("gate.decided")).toBe("decision");
    expect(kindOf("run.retried")).toBe("state");
    expect(kindOf("signal.received")).toBe("state");
  });
});

describe("filterEvents", () => {
  const events = [
    buildEvent({ type: "model.decision", data: { decision: { kind: "call", tool: "payments.refund" } } }),
    buildEvent({ type: "tool.call", data: { tool: "orders.get", latencyMs: 12, attempt: 1 } }),
    buildEvent({
      type: "gate.decided",
      data: { by: "rita@example.com", decision: "approve", tool: "payments.refund", waitedMs: 5000 },
    }),
  ];
  it("keeps only the chosen kinds", () => {
    expect(filterEvents(events, { kinds: new Set(["tool", "decision"]), text: "" }).map((e) => e.type)).toEqual([
      "tool.call",
      "gate.decided",
    ]);
  });
  it("matches text in the type, the summary or the data, ignoring case", () => {
    expect(filterEvents(events, { kinds: ALL_KINDS, text: "RITA" }).map((e) => e.type)).toEqual(["gate.decided"]);
    expect(filterEvents(events, { kinds: ALL_KINDS, text: " payments.refund " })).toHaveLength(2);
    expect(filterEvents(events, { kinds: ALL_KINDS, text: "nothing like this" })).toEqual([]);
    expect(filterEvents(events, { kinds: new Set(), text: "" })).toEqual([]);
  });
});

describe("buildTimelineRows", () => {
  it("groups consecutive events of a step under one header, in seq order", () => {
    const events = [
      buildEvent({ step: 0 }),
      buildEvent({ step: 0 }),
      buildEvent({ step: 1 }),
      buildEvent({ step: -1 }),
      buildEvent({ step: 1 }),
    ];
    const rows = buildTimelineRows(events);
    expect(
      rows.map((r) => (r.kind === "step" ? `S${r.step}:${r.count}` : r.kind === "event" ? `e${r.event.seq}` : "w")),
    ).toEqual([
      "S0:2",
      `e${events[0].seq}`,
      `e${events[1].seq}`,
      "S1:1",
      `e${events[2].seq}`,
      "S-1:1",
      `e${events[3].seq}`,
      "S1:1",
      `e${events[4].seq}`,
    ]);
  });

  it("a run paused for days reads as one timeline: the wait for the person is its own row", () => {
    const day = 86_400_000;
    const events = [
      buildEvent({ step: 2, type: "gate.requested", data: { tool: "payments.refund" } }),
      buildEvent({
        step: 2,
        type: "gate.decided",
        offsetMs: 3 * day,
        data: { by: "rita@example.com", decision: "approve", tool: "payments.refund", waitedMs: 3 * day },
      }),
      buildEvent({
        step: 2,
        type: "run.status",
        offsetMs: 3 * day + 10,
        data: { from: "WAITING_APPROVAL", to: "RUNNING" },
      }),
    ];
    const rows = buildTimelineRows(events);
    const wait = rows.find((r) => r.kind === "wait");
    expect(wait).toMatchObject({
      fromSeq: events[0].seq,
      toSeq: events[1].seq,
      waitedMs: 3 * day,
      reason: "waiting for a person to decide payments.refund",
    });
    expect(formatDuration(3 * day)).toBe("3 days 0 h");
    expect(summarizeEvent(events[1])).toBe("rita@example.com decided approve on payments.refund after 3 days 0 h");
    // The step continues after the wait under a fresh header, so the group stays readable.
    expect(rows.map((r) => r.kind)).toEqual(["step", "event", "wait", "step", "event", "event"]);
  });
});

describe("summarizeEvent", () => {
  it("says what a tool call did: attempt, latency, error class", () => {
    expect(
      summarizeEvent(
        buildEvent({
          type: "tool.call",
          data: { tool: "payments.refund", attempt: 2, latencyMs: 31, errorClass: "timeout", error: "took too long" },
        }),
      ),
    ).toBe("payments.refund attempt 2 · 31 ms · failed (timeout): took too long");
    expect(
      summarizeEvent(
        buildEvent({
          type: "model.decision",
          data: { decision: { kind: "call", tool: "orders.get" }, usage: { inputTokens: 100, outputTokens: 20 } },
        }),
      ),
    ).toBe("decided: call orders.get · 120 tokens");
  });

  it("says why an approved action was refused at the moment of acting", () => {
    expect(
      summarizeEvent(
        buildEvent({
          type: "gate.refused",
          data: { packetId: "pkt_1", tool: "payments.refund", why: "permission was revoked while the run waited" },
        }),
      ),
    ).toBe("approved payments.refund not executed: permission was revoked while the run waited");
  });
});

describe("computeStepMetrics", () => {
  it("sums tokens and cost from model decisions and latency from tool calls, per step", () => {
    const metrics = computeStepMetrics([
      buildEvent({
        step: 0,
        type: "model.decision",
        data: { usage: { inputTokens: 100, outputTokens: 10, costUsd: 0.001 } },
      }),
      buildEvent({ step: 0, type: "tool.call", data: { latencyMs: 40 } }),
      buildEvent({ step: 1, type: "model.decision", data: { usage: null } }),
      buildEvent({ step: 1, type: "tool.call", data: { latencyMs: 10, errorClass: "timeout" } }),
      buildEvent({ step: 1, type: "tool.call", data: { latencyMs: 15 } }),
      buildEvent({ step: -1, type: "run.cancelled", data: {} }),
    ]);
    expect(metrics.steps).toEqual([
      { step: 0, modelCalls: 1, tokens: 110, costUsd: 0.001, toolCalls: 1, toolLatencyMs: 40, toolErrors: 0 },
      { step: 1, modelCalls: 1, tokens: 0, costUsd: 0, toolCalls: 2, toolLatencyMs: 25, toolErrors: 1 },
    ]);
    expect(metrics.totals).toMatchObject({ tokens: 110, toolLatencyMs: 65, toolCalls: 3, toolErrors: 1 });
  });
});

describe("diffJson", () => {
  it("reports added, removed and changed leaves with their paths", () => {
    const diff = diffJson(
      { step: 1, usage: { costUsd: 0 }, output: "x", pending: null },
      { step: 2, usage: { costUsd: 0.5 }, pending: { kind: "sleep" }, extra: [1] },
    );
    expect(diff).toEqual([
      { op: "changed", path: ["step"], before: 1, after: 2 },
      { op: "changed", path: ["usage", "costUsd"], before: 0, after: 0.5 },
      { op: "removed", path: ["output"], before: "x" },
      { op: "changed", path: ["pending"], before: null, after: { kind: "sleep" } },
      { op: "added", path: ["extra"], after: [1] },
    ]);
  });

  it("matches array elements with ids by id, so an insertion is one addition", () => {
    const before = {
      facts: [
        { id: "f1", v: 1 },
        { id: "f2", v: 2 },
      ],
    };
    const after = {
      facts: [
        { id: "f0", v: 0 },
        { id: "f1", v: 1 },
        { id: "f2", v: 3 },
      ],
    };
    const diff = diffJson(before, after);
    expect(diff).toEqual([
      { op: "added", path: ["facts", "[id=f0]"], after: { id: "f0", v: 0 } },
      { op: "changed", path: ["facts", "[id=f2]", "v"], before: 2, after: 3 },
    ]);
    expect(formatPath(diff[1].path)).toBe("facts[id=f2].v");
  });

  it("compares plain arrays by index and finds nothing between equal documents", () => {
    expect(diffJson([1, 2, 3], [1, 5])).toEqual([
      { op: "changed", path: [1], before: 2, after: 5 },
      { op: "removed", path: [2], before: 3 },
    ]);
    expect(diffJson({ a: [{ b: 1 }], c: "d" }, { a: [{ b: 1 }], c: "d" })).toEqual([]);
    expect(formatPath([])).toBe("(root)");
    expect(formatPath(["observations", 3, "message"])).toBe("observations[3].message");
  });
});
