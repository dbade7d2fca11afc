import { describe, expect, it } from "vitest";
import { loadConfig } from "../lib/config";
import type { RuntimeStore, TraceEvent } from "../lib/runtime";
import { defaultRedaction, redactPayload, redactedKeys } from "../lib/telemetry/redact";
import type { SpanData } from "../lib/telemetry/span-data";
import { createSpanFold } from "../lib/telemetry/spans";
import { withTraceExport } from "../lib/telemetry/store";
import {
  parseTraceparent,
  runWithTraceContext,
  spanIdOf,
  traceContextFromHeaders,
  traceIdOfRun,
} from "../lib/telemetry/trace-context";
import { isTraceExportEnabled } from "../lib/telemetry";

// The spans of a run as a function of its trace events (lib/telemetry/spans.ts), the redaction rule
// for tool payloads, and W3C traceparent handling. Across processes and a crash: tests/otel.int.test.ts.

const RUN = "run_otel_unit";
const SECRET = "sk_live_4eC39HqLyjWDarjtT1zdp7dc";

/** A run's events: each inner list is one commit (one time, consecutive seqs). */
function log(
  commits: Array<Array<[type: string, step: number, data: Record<string, unknown>]>>,
  start = Date.parse("2026-01-01T00:00:00Z"),
): TraceEvent[] {
  let seq = 0;
  return commits.flatMap((commit, i) =>
    commit.map(([type, step, data]) => ({ runId: RUN, seq: ++seq, type, step, data, at: new Date(start + i * 1000) })),
  );
}

const model = (decision: Record<string, unknown>) => ({
  decision,
  usage: { inputTokens: 120, outputTokens: 30, costUsd: 0.0001 },
  raw: { model: "openai.chat:gpt-4o-mini", attempts: 1 },
});

const EVENTS = log([
  [
    [
      "run.created",
      0,
      {
        agent: "refund-agent",
        version: "1",
        input: { card: SECRET },
        startedBy: "dev@test",
        traceContext: { traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01" },
      },
    ],
  ],
  [
    ["run.status", 0, { from: "QUEUED", to: "RUNNING" }],
    [
      "model.decision",
      0,
      model({
        kind: "call",
        tool: "orders.get",
        args: { orderId: "ord_1", token: SECRET },
        planStep: "read-order",
        reasoning: `because ${SECRET}`,
      }),
    ],
    ["permission.checked", 0, { tool: "orders.get", effect: "allow", reason: "allowed", ruleVersion: 1 }],
    [
      "tool.call",
      0,
      {
        tool: "orders.get",
        args: { orderId: "ord_1", token: SECRET },
        semantics: "pure-read",
        operationId: null,
        idempotencyKey: null,
        attempt: 1,
        latencyMs: 200,
        error: `timeout ${SECRET}`,
        errorClass: "timeout",
        outcome: "unknown",
      },
    ],
    [
      "tool.call",
      0,
      {
        tool: "orders.get",
        args: { orderId: "ord_1", token: SECRET },
        semantics: "pure-read",
        operationId: null,
        idempotencyKey: null,
        attempt: 2,
        latencyMs: 100,
        result: { id: "ord_1", note: SECRET },
      },
    ],
  ],
  [
    ["model.decision", 1, model({ kind: "call", tool: "payments.refund", args: { amountCents: 24000 } })],
    [
      "permission.checked",
      1,
      { tool: "payments.refund", effect: "require_approval", reason: "over the limit", ruleVersion: 2 },
    ],
    [
      "gate.requested",
      1,
      {
        packetId: "pkt_1",
        tool: "payments.refund",
        args: { amountCents: 24000, apiKey: SECRET },
        digest: "d",
        impact: `refunds ${SECRET}`,
        reason: "r",
        requiredApprovals: 2,
        queue: "refunds",
        expiresAt: null,
      },
    ],
    ["run.status", 1, { from: "RUNNING", to: "WAITING_APPROVAL" }],
  ],
  [["gate.approval_recorded", 1, { packetId: "pkt_1", by: "ann@test", approvals: 1, required: 2 }]],
  [
    [
      "gate.decided",
      1,
      { packetId: "pkt_1", tool: "payments.refund", by: "bob@test", waitedMs: 2000, decision: "approve", digest: "d" },
    ],
  ],
  [
    ["run.status", 1, { from: "WAITING_APPROVAL", to: "RUNNING" }],
    ["gate.acting", 1, { packetId: "pkt_1", digest: "d", decision: "approve" }],
    [
      "effect.intent",
      1,
      {
        operationId: "op_1",
        idempotencyKey: "op_1",
        tool: "payments.refund",
        args: { amountCents: 24000 },
        semantics: "idempotent",
        packetId: "pkt_1",
      },
    ],
  ],
  [
    [
      "tool.call",
      1,
      {
        tool: "payments.refund",
        args: { amountCents: 24000 },
        semantics: "idempotent",
        operationId: "op_1",
        idempotencyKey: "op_1",
        attempt: 1,
        latencyMs: 300,
        result: { refundId: "re_1" },
      },
    ],
  ],
  [
    ["model.decision", 2, model({ kind: "complete", output: { secret: SECRET } })],
    ["run.completed", 2, { output: { secret: SECRET } }],
    ["run.status", 2, { from: "RUNNING", to: "COMPLETED" }],
  ],
]);

const spansOf = (events: TraceEvent[]) => createSpanFold(RUN).apply(events);
const named = (spans: SpanData[], name: string) => spans.find((s) => s.name === name)!;

describe("traceparent", () => {
  it("reads a valid header and refuses malformed ones", () => {
    expect(parseTraceparent("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")).toEqual({
      traceId: "0af7651916cd43dd8448eb211c80319c",
      spanId: "b7ad6b7169203331",
      sampled: true,
    });
    expect(parseTraceparent("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00")?.sampled).toBe(false);
    for (const bad of [
      undefined,
      "",
      "garbage",
      "00-00000000000000000000000000000000-b7ad6b7169203331-01",
      "00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01",
      "ff-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
      "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-extra",
    ]) {
      expect(parseTraceparent(bad)).toBeNull();
    }
    expect(traceContextFromHeaders(new Headers({ traceparent: "nope" }))).toBeNull();
    expect(
      traceContextFromHeaders(
        new Headers({ traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", tracestate: "vendor=x" }),
      ),
    ).toEqual({ traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", tracestate: "vendor=x" });
  });

  it("is on only with an OTLP endpoint, and off when the SDK is disabled", () => {
    expect(isTraceExportEnabled(loadConfig({}))).toBe(false);
    expect(isTraceExportEnabled(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" }))).toBe(true);
    expect(
      isTraceExportEnabled(loadConfig({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://collector:4318/v1/traces" })),
    ).toBe(true);
    expect(
      isTraceExportEnabled(
        loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318", OTEL_SDK_DISABLED: "true" }),
      ),
    ).toBe(false);
    expect(
      isTraceExportEnabled(
        loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318", OTEL_TRACES_EXPORTER: "none" }),
      ),
    ).toBe(false);
  });
});

describe("tool payload redaction", () => {
  const payload = {
    orderId: "ord_1",
    amountCents: 24000,
    card: { number: SECRET },
    items: [{ sku: "a" }],
    note: `call me, key ${SECRET}`,
    apiKey: "plain",
  };

  it("by default keeps keys and types only", () => {
    const out = redactPayload(payload, defaultRedaction);
    expect(JSON.parse(out)).toEqual({
      orderId: "string",
      amountCents: "number",
      card: { number: "string" },
      items: [{ sku: "string" }],
      note: "string",
      apiKey: "string",
    });
    expect(out).not.toContain(SECRET);
  });

  it("with values, blanks listed keys and anything that looks like a credential", () => {
    const rule = loadConfig({ TETHER_OTEL_TOOL_PAYLOADS: "values", TETHER_OTEL_REDACT_KEYS: "orderId" }).telemetry
      .redaction;
    const out = JSON.parse(redactPayload(payload, rule));
    expect(out).toMatchObject({
      orderId: "[redacted]",
      amountCents: 24000,
      apiKey: "[redacted]",
      items: [{ sku: "a" }],
      note: "call me, key [redacted]",
    });
    expect(JSON.stringify(out)).not.toContain(SECRET);
    for (const s of [
      "Bearer abc.def",
      "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
      "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
      "AKIAIOSFODNN7EXAMPLE",
    ]) {
      expect(redactPayload({ text: `x ${s} y` }, rule)).not.toContain(s);
    }
    expect(redactedKeys().test("password")).toBe(true);
    expect(() => loadConfig({ TETHER_OTEL_TOOL_PAYLOADS: "all" })).toThrow(/shape/);
  });
});

describe("a run's spans from its trace events", () => {
  const spans = spansOf(EVENTS).map((f) => f.span);

  it("makes one trace under the caller's span: run → steps → model calls, tool calls and the human wait", () => {
    expect(new Set(spans.map((s) => s.traceId))).toEqual(new Set(["0af7651916cd43dd8448eb211c80319c"]));
    const root = named(spans, "invoke_agent refund-agent");
    expect(root.parentSpanId).toBe("b7ad6b7169203331");
    expect(root.spanId).toBe(spanIdOf(RUN, "run"));
    expect(root.attributes).toMatchObject({
      "tether.run.status": "COMPLETED",
      "gen_ai.usage.input_tokens": 360,
      "gen_ai.usage.output_tokens": 90,
      "tether.run.started_by": "dev@test",
    });
    const steps = spans.filter((s) => s.attributes["tether.span"] === "step");
    expect(steps.map((s) => [s.name, s.parentSpanId])).toEqual([
      ["step 0", root.spanId],
      ["step 1", root.spanId],
      ["step 2", root.spanId],
    ]);
    const step = (n: number) => steps[n].spanId;
    const children = (id: string) =>
      spans
        .filter((s) => s.parentSpanId === id)
        .map((s) => s.name)
        .sort();
    expect(children(step(0))).toEqual(["chat gpt-4o-mini", "execute_tool orders.get", "execute_tool orders.get"]);
    expect(children(step(1))).toEqual([
      "await_decision payments.refund",
      "chat gpt-4o-mini",
      "execute_tool payments.refund",
    ]);
    expect(children(step(2))).toEqual(["chat gpt-4o-mini"]);
    expect(spans).toHaveLength(1 + 3 + 4 + 3);
  });

  it("gives model calls the GenAI attributes and tool calls their key, attempt and outcome", () => {
    const chat = spans.find((s) => s.name === "chat gpt-4o-mini")!;
    expect(chat.attributes).toMatchObject({
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "openai",
      "gen_ai.request.model": "gpt-4o-mini",
      "gen_ai.usage.input_tokens": 120,
      "gen_ai.usage.output_tokens": 30,
      "tether.decision.kind": "call",
      "tether.decision.tool": "orders.get",
    });
    expect(chat.kind).toBe("client");
    const [failed, retried] = spans.filter((s) => s.name === "execute_tool orders.get");
    expect(failed.attributes).toMatchObject({ "tether.tool.attempt": 1, "error.type": "timeout" });
    expect(failed.status.code).toBe("error");
    expect(retried.attributes).toMatchObject({
      "tether.tool.attempt": 2,
      "gen_ai.tool.call.result": JSON.stringify({ id: "string", note: "string" }),
    });
    // Back to back, ending at their commit: the second attempt ends at the commit time, the first before it.
    expect(retried.end.getTime() - retried.start.getTime()).toBe(100);
    expect(failed.end.getTime()).toBe(retried.start.getTime());
    const refund = named(spans, "execute_tool payments.refund");
    expect(refund.attributes).toMatchObject({
      "gen_ai.tool.call.id": "op_1",
      "tether.tool.idempotency_key": "op_1",
      "tether.tool.attempt": 1,
      "tether.tool.semantics": "idempotent",
    });
  });

  it("spans the human wait from the request to the decision, with the reviewers and the decision", () => {
    const wait = named(spans, "await_decision payments.refund");
    expect(wait.spanId).toBe(spanIdOf(RUN, "gate/pkt_1"));
    expect(wait.end.getTime() - wait.start.getTime()).toBe(2000);
    expect(wait.attributes).toMatchObject({
      "tether.gate.decision": "approve",
      "tether.gate.reviewer": "bob@test",
      "tether.gate.reviewers": ["ann@test", "bob@test"],
      "tether.gate.required_approvals": 2,
      "tether.gate.queue": "refunds",
    });
    expect(wait.events.map((e) => e.name)).toEqual(["gate.approval_recorded"]);
  });

  it("carries no argument, result, reasoning, impact, error text or output value", () => {
    expect(JSON.stringify(spans)).not.toContain(SECRET);
  });

  it("hands each span to the write that finished it, however the events are split into writes", () => {
    const once = spansOf(EVENTS);
    // A write is a commit: the cuts fall between commits (events 1 | 2–6 | 7–10 | 11 | 12 | 13–15 | 16 | 17–19).
    for (const cut of [
      [1, 6, 10, 11, 12, 15, 16],
      [6, 11, 12],
      [10, 15],
    ]) {
      const collected: SpanData[] = [];
      let from = 1;
      let fold = createSpanFold(RUN);
      for (const to of [...cut, EVENTS.length]) {
        if (to < from) continue;
        // A write is derived by a fold that has seen everything before it (kept, or rebuilt from the start).
        if (to % 2 === 0) fold = createSpanFold(RUN);
        collected.push(
          ...fold
            .apply(EVENTS.filter((e) => e.seq <= to))
            .filter((f) => f.seq >= from && f.seq <= to)
            .map((f) => f.span),
        );
        from = to + 1;
      }
      expect(collected).toEqual(once.map((f) => f.span));
    }
  });

  it("derives the trace id from the run id when no caller gave one, and sends nothing the caller did not sample", () => {
    const plain = EVENTS.map((e) => (e.type === "run.created" ? { ...e, data: { agent: "refund-agent" } } : e));
    expect(new Set(spansOf(plain).map((f) => f.span.traceId))).toEqual(new Set([traceIdOfRun(RUN)]));
    expect(spansOf(plain).find((f) => f.span.name.startsWith("invoke_agent"))!.span.parentSpanId).toBeNull();
    const unsampled = EVENTS.map((e) =>
      e.type === "run.created"
        ? {
            ...e,
            data: {
              ...e.data,
              traceContext: { traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00" },
            },
          }
        : e,
    );
    expect(spansOf(unsampled)).toEqual([]);
  });

  it("closes the wait, the step and the run when the run is cancelled while it waits", () => {
    const waiting = EVENTS.filter((e) => e.seq <= 10);
    const cancelled = [
      ...waiting,
      {
        runId: RUN,
        seq: 11,
        type: "run.cancelled",
        step: -1,
        data: { by: "op@test" },
        at: new Date(waiting[9].at.getTime() + 5000),
      },
    ];
    const out = spansOf(cancelled)
      .filter((f) => f.seq === 11)
      .map((f) => f.span);
    expect(out.map((s) => s.name).sort()).toEqual([
      "await_decision payments.refund",
      "invoke_agent refund-agent",
      "step 1",
    ]);
    expect(named(out, "await_decision payments.refund").attributes["tether.gate.decision"]).toBe("cancelled");
    expect(named(out, "invoke_agent refund-agent").attributes["tether.run.status"]).toBe("CANCELLED");
  });

  it("opens a second root, under the first, when a failed run is retried", () => {
    const failedAt = EVENTS.filter((e) => e.seq <= 5);
    const t = failedAt[4].at.getTime();
    const more = [
      ...failedAt,
      {
        runId: RUN,
        seq: 6,
        type: "run.status",
        step: 0,
        data: { from: "RUNNING", to: "FAILED", error: SECRET },
        at: new Date(t),
      },
      { runId: RUN, seq: 7, type: "run.retried", step: 1, data: { by: "op@test" }, at: new Date(t + 1000) },
      {
        runId: RUN,
        seq: 8,
        type: "model.decision",
        step: 1,
        data: model({ kind: "complete" }),
        at: new Date(t + 2000),
      },
      {
        runId: RUN,
        seq: 9,
        type: "run.status",
        step: 1,
        data: { from: "RUNNING", to: "COMPLETED" },
        at: new Date(t + 2000),
      },
    ];
    const out = spansOf(more).map((f) => f.span);
    const roots = out.filter((s) => s.attributes["tether.span"] === "run");
    expect(roots.map((r) => [r.attributes["tether.run.status"], r.status.code])).toEqual([
      ["FAILED", "error"],
      ["COMPLETED", "unset"],
    ]);
    expect(roots[1].parentSpanId).toBe(roots[0].spanId);
    expect(out.find((s) => s.name === "step 1")!.parentSpanId).toBe(roots[1].spanId);
    expect(JSON.stringify(out)).not.toContain(SECRET);
  });
});

describe("the exporting store", () => {
  it("records an incoming traceparent with the run it starts, and sends the spans each commit finishes", async () => {
    const created: unknown[] = [];
    const sent: SpanData[] = [];
    let written = 0;
    const fake = {
      createRun: async (run: { events: unknown[] }) => {
        created.push(run.events[0]);
        return { run: {}, created: true };
      },
      commitStep: async (commit: { events: unknown[] }) => {
        written += commit.events.length;
        return { stateSeq: 1, eventSeq: written };
      },
      listEvents: async (_runId: string, opts: { afterSeq?: number; limit?: number } = {}) =>
        EVENTS.filter((e) => e.seq > (opts.afterSeq ?? 0) && e.seq <= written).slice(0, opts.limit),
    } as unknown as RuntimeStore;
    const store = withTraceExport(fake, {
      sink: { export: (spans) => sent.push(...spans), flush: async () => {}, shutdown: async () => {} },
    });
    const traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    await runWithTraceContext({ traceparent }, () =>
      store.createRun({ events: [{ type: "run.created", step: 0, data: { agent: "a" } }] } as never),
    );
    expect(created).toEqual([{ type: "run.created", step: 0, data: { agent: "a", traceContext: { traceparent } } }]);
    await store.createRun({ events: [{ type: "run.created", step: 0, data: { agent: "b" } }] } as never);
    expect(created[1]).toEqual({ type: "run.created", step: 0, data: { agent: "b" } });

    written = 1; // run.created
    const lease = { runId: RUN, owner: "w", epoch: 1, expiresAt: new Date() };
    for (const size of [5, 4]) await store.commitStep({ lease, events: Array.from({ length: size }) } as never);
    await store.flush();
    expect(sent.map((s) => s.name)).toEqual([
      "chat gpt-4o-mini",
      "execute_tool orders.get",
      "execute_tool orders.get",
      "step 0",
      "chat gpt-4o-mini",
    ]);
  });
});

describe("child runs", () => {
  const PARENT = "run_otel_parent";
  const CHILD = "run_otel_child";
  const parentTrace = "0af7651916cd43dd8448eb211c80319c";

  it("a child run's root is in its parent's trace, under the step that started it, and links to it", () => {
    const traceparent = `00-${parentTrace}-${spanIdOf(PARENT, "step/3")}-01`;
    const at = Date.parse("2026-01-01T00:00:00Z");
    const events: TraceEvent[] = [
      {
        runId: CHILD,
        seq: 1,
        step: 0,
        type: "run.created",
        data: { agent: "reviewer", traceContext: { traceparent } },
        at: new Date(at),
      },
      {
        runId: CHILD,
        seq: 2,
        step: 0,
        type: "run.spawned_by",
        data: { parentRunId: PARENT, parentStep: 3, parentAgent: "writer" },
        at: new Date(at),
      },
      {
        runId: CHILD,
        seq: 3,
        step: 0,
        type: "run.status",
        data: { from: "QUEUED", to: "RUNNING" },
        at: new Date(at + 1000),
      },
      { runId: CHILD, seq: 4, step: 0, type: "run.completed", data: { output: 1 }, at: new Date(at + 1000) },
      {
        runId: CHILD,
        seq: 5,
        step: 0,
        type: "run.status",
        data: { from: "RUNNING", to: "COMPLETED" },
        at: new Date(at + 1000),
      },
    ];
    const spans = createSpanFold(CHILD)
      .apply(events)
      .map((f) => f.span);
    const root = spans.find((s) => s.name === "invoke_agent reviewer")!;
    expect(root).toMatchObject({
      traceId: parentTrace,
      parentSpanId: spanIdOf(PARENT, "step/3"),
      attributes: { "tether.run.spawned_by": PARENT, "tether.run.spawned_at_step": 3 },
    });
    expect(root.links).toEqual([
      {
        traceId: parentTrace,
        spanId: spanIdOf(PARENT, "step/3"),
        attributes: { "tether.link": "spawned_by", "tether.run.id": PARENT },
      },
    ]);
    expect(new Set(spans.map((s) => s.traceId))).toEqual(new Set([parentTrace]));
  });

  it("the parent's step span shows the child started and completed", () => {
    const at = Date.parse("2026-01-01T00:00:00Z");
    const ev = (seq: number, type: string, data: Record<string, unknown>, t: number, step = 0): TraceEvent => ({
      runId: PARENT,
      seq,
      step,
      type,
      data,
      at: new Date(at + t),
    });
    const spans = createSpanFold(PARENT)
      .apply([
        ev(1, "run.created", { agent: "writer" }, 0),
        ev(2, "run.status", { from: "QUEUED", to: "RUNNING" }, 1000),
        ev(3, "child.started", { childRunId: CHILD, agent: "reviewer", idempotencyKey: `spawn:${PARENT}:0:0` }, 1000),
        ev(4, "run.status", { from: "RUNNING", to: "WAITING_EVENT" }, 1000),
        ev(5, "run.status", { from: "WAITING_EVENT", to: "RUNNING" }, 2000),
        ev(6, "child.completed", { childRunId: CHILD, agent: "reviewer", status: "COMPLETED" }, 2000),
        ev(7, "run.completed", { output: 1 }, 2000, 1),
        ev(8, "run.status", { from: "RUNNING", to: "COMPLETED" }, 2000, 1),
      ])
      .map((f) => f.span);
    const step = spans.find((s) => s.name === "step 0")!;
    expect(step.events.map((e) => [e.name, e.attributes["tether.childRunId"]])).toEqual([
      ["child.started", CHILD],
      ["child.completed", CHILD],
    ]);
    expect(step.events[1].attributes["tether.status"]).toBe("COMPLETED");
  });

  it("the exporting store starts a child run in its parent's trace: the parent's caller's, or the parent's own", async () => {
    const created: Array<{ data: Record<string, unknown> }> = [];
    let parentCreated: Record<string, unknown> = {
      agent: "writer",
      traceContext: { traceparent: `00-${parentTrace}-b7ad6b7169203331-01` },
    };
    const fake = {
      createRun: async (run: { events: Array<{ data: Record<string, unknown> }> }) => {
        created.push(run.events[0]);
        return { run: {}, created: true };
      },
      listEvents: async () => [
        { runId: PARENT, seq: 1, step: 0, type: "run.created", data: parentCreated, at: new Date() },
      ],
    } as unknown as RuntimeStore;
    const store = withTraceExport(fake, {
      sink: { export: () => {}, flush: async () => {}, shutdown: async () => {} },
    });
    const child = {
      spawnedByRunId: PARENT,
      spawnedAtStep: 2,
      events: [{ type: "run.created", step: 0, data: { agent: "reviewer" } }],
    } as never;
    await store.createRun(child);
    expect(created[0].data.traceContext).toEqual({ traceparent: `00-${parentTrace}-${spanIdOf(PARENT, "step/2")}-01` });
    parentCreated = { agent: "writer" };
    await store.createRun(child);
    expect(created[1].data.traceContext).toEqual({
      traceparent: `00-${traceIdOfRun(PARENT)}-${spanIdOf(PARENT, "step/2")}-01`,
    });
  });
});
