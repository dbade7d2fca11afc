import type { TraceEvent } from "@/lib/runtime/types";
import { modelCallSpan, policyErrorSpan, toolCallSpan, type CommitTimes } from "./call-spans";
import { defaultRedaction, type Redaction } from "./redact";
import { num, pick, str, type Attributes, type FinishedSpan, type OpenSpan, type SpanData } from "./span-data";
import { parseTraceparent, spanIdOf, traceIdOfRun } from "./trace-context";

// A run's OpenTelemetry spans, derived from its trace events (docs/observability.md) and nothing else: the
// events are the durable record, so any process can compute the same spans with the same ids, after
// a crash as well as before. `createSpanFold` reads the events in seq order and hands back each span
// when the event that finishes it goes by, tagged with that event's seq: the process that wrote
// that event exports it (lib/telemetry/store.ts), so each span leaves once, whoever wrote the rest.
//
// The tree: run (invoke_agent) → step N → model call (chat) | tool call (execute_tool, one per
// attempt) | human wait (await_decision, from the request to the decision). Times come from the
// record: the commit time of each event and the latencies it holds (events of one commit share a
// time), so spans inside a step are placed back from their commit by their recorded latencies.
// This file keeps the tree and the timeline; a call's own span is built in call-spans.ts, and what a span
// is made of is in span-data.ts.

const TERMINAL = new Set(["COMPLETED", "FAILED", "CANCELLED"]);
const MAX_EVENTS = 128;

export type SpanFold = {
  /** The last event folded. */
  readonly seq: number;
  /** Fold the next events (seq order, no gaps); returns the spans they finish. */
  apply(events: TraceEvent[]): FinishedSpan[];
};

export function createSpanFold(runId: string, opts: { redaction?: Redaction } = {}): SpanFold {
  const redaction = opts.redaction ?? defaultRedaction;
  let seq = 0;
  let traceId = traceIdOfRun(runId);
  let remoteParent: string | null = null;
  let sampled = true;
  let agent = "agent";
  let attempt = 0; // a retried run gets a new root span (the first one ended with the failure)
  let root: OpenSpan | null = null;
  let rootEnded = false;
  const steps = new Map<number, OpenSpan>();
  const waits = new Map<string, OpenSpan & { stepSpanId: string }>();
  const usage = { input: 0, output: 0 };
  let previousAt: Date | null = null;

  /** The span is over; `by` is the seq of the event that ended it. */
  const finish = (span: OpenSpan, by: number, out: FinishedSpan[], kind: SpanData["kind"] = "internal") => {
    if (!sampled) return;
    out.push({
      seq: by,
      span: {
        traceId,
        spanId: span.spanId,
        parentSpanId: span.parentSpanId,
        name: span.name,
        kind,
        start: span.start,
        end: span.end < span.start ? span.start : span.end,
        attributes: span.attributes,
        events: span.events,
        status: span.error !== undefined ? { code: "error", message: span.error } : { code: "unset" },
        ...(span.links ? { links: span.links } : {}),
      },
    });
  };
  const note = (span: OpenSpan, name: string, at: Date, attributes: Attributes = {}) => {
    if (span.events.length < MAX_EVENTS) span.events.push({ name, at, attributes });
  };

  function openRoot(event: TraceEvent) {
    const data = event.data;
    if (event.type === "run.created" || event.type === "run.forked") {
      const context = data.traceContext as { traceparent?: string } | undefined;
      const parent = parseTraceparent(context?.traceparent);
      if (parent) {
        traceId = parent.traceId;
        remoteParent = parent.spanId;
        sampled = parent.sampled;
      }
      if (typeof data.agent === "string") agent = data.agent;
    }
    const first = attempt === 0;
    root = {
      spanId: spanIdOf(runId, first ? "run" : `run/${attempt}`),
      parentSpanId: first ? remoteParent : spanIdOf(runId, "run"),
      name: `invoke_agent ${agent}`,
      start: event.at,
      end: event.at,
      attributes: {
        "tether.span": "run",
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.agent.name": agent,
        "gen_ai.conversation.id": runId,
        "tether.run.id": runId,
        ...(attempt > 0 ? { "tether.run.attempt": attempt } : {}),
        ...str("tether.agent.version", data.version),
        ...str("tether.run.started_by", data.startedBy),
        ...str("tether.run.forked_from", data.from),
      },
      events: [],
    };
    rootEnded = false;
  }

  function stepSpan(step: number, at: Date): OpenSpan {
    let span = steps.get(step);
    if (!span) {
      span = {
        spanId: spanIdOf(runId, `step/${step}${attempt ? `/${attempt}` : ""}`),
        parentSpanId: root!.spanId,
        name: `step ${step}`,
        start: at,
        end: at,
        attributes: { "tether.span": "step", "tether.step": step },
        events: [],
      };
      steps.set(step, span);
    }
    return span;
  }

  /** Steps before `step` are over: the run moved on. */
  function closeStepsBefore(step: number, seqNow: number, out: FinishedSpan[]) {
    for (const [n, span] of [...steps]) {
      if (n >= step) continue;
      finish(span, seqNow, out);
      steps.delete(n);
    }
  }

  function endRun(event: TraceEvent, status: string, out: FinishedSpan[]) {
    for (const [id, wait] of waits) {
      wait.end = event.at;
      wait.attributes["tether.gate.decision"] = status === "CANCELLED" ? "cancelled" : "none";
      finish(wait, event.seq, out);
      waits.delete(id);
    }
    closeStepsBefore(Number.MAX_SAFE_INTEGER, event.seq, out);
    const span = root!;
    span.end = event.at;
    span.attributes["tether.run.status"] = status;
    if (usage.input || usage.output) {
      span.attributes["gen_ai.usage.input_tokens"] = usage.input;
      span.attributes["gen_ai.usage.output_tokens"] = usage.output;
    }
    // The run's error is free text (it may quote a tool's answer): only the fact of failure leaves.
    if (status === "FAILED") span.error = "the run failed";
    finish(span, event.seq, out);
    rootEnded = true;
  }

  /** One commit's events (they share a time): places the calls of the commit back from its time. */
  function applyGroup(group: TraceEvent[], out: FinishedSpan[]) {
    const at = group[0].at;
    // Tool calls end at the commit, one after the other; the model's decision came before them.
    const toolTimes = new Map<number, { start: Date; end: Date }>();
    let cursor = at.getTime();
    for (const e of [...group].reverse()) {
      if (e.type !== "tool.call") continue;
      const latency = num(e.data.latencyMs) ?? 0;
      toolTimes.set(e.seq, { start: new Date(cursor - latency), end: new Date(cursor) });
      cursor -= latency;
    }
    const callsStart = new Date(cursor);
    // A commit that begins by taking the run (→ RUNNING) started when the run was claimed, which is
    // not recorded: its model call is placed at the calls' start rather than at the previous commit.
    const claimed = group[0].type === "run.status" && group[0].data.to === "RUNNING";
    const groupStart = previousAt && !claimed && previousAt <= callsStart ? previousAt : callsStart;

    for (const event of group) {
      seq = event.seq;
      if (!root || (rootEnded && event.type === "run.retried")) {
        if (rootEnded) attempt += 1;
        openRoot(event);
        if (event.type === "run.created" || event.type === "run.forked") continue;
      }
      applyEvent(event, { groupStart, toolTimes }, out);
    }
    previousAt = at;
  }

  function applyEvent(event: TraceEvent, time: CommitTimes, out: FinishedSpan[]) {
    const { data, at } = event;
    const run = root!;
    if (event.type === "run.status" || event.type === "run.cancelled") {
      const to = event.type === "run.cancelled" ? "CANCELLED" : String(data.to);
      note(run, "run.status", at, { "tether.run.from": String(data.from ?? ""), "tether.run.to": to });
      if (TERMINAL.has(to) && !rootEnded) endRun(event, to, out);
      return;
    }
    if (event.type === "run.spawned_by" && typeof data.parentRunId === "string") {
      // A child run: its root is in its parent's trace, under the parent's step that started it (the
      // run.created traceContext, lib/telemetry/store.ts), and links to that step's span context.
      const parentStep = num(data.parentStep) ?? 0;
      run.attributes["tether.run.spawned_by"] = data.parentRunId;
      run.attributes["tether.run.spawned_at_step"] = parentStep;
      run.links = [
        {
          traceId: remoteParent ? traceId : traceIdOfRun(data.parentRunId),
          spanId: spanIdOf(data.parentRunId, `step/${parentStep}`),
          attributes: { "tether.link": "spawned_by", "tether.run.id": data.parentRunId },
        },
      ];
      note(run, event.type, at, pick(data, ["parentRunId", "parentStep", "parentAgent"]));
      return;
    }
    if (event.step < 0 || rootEnded || event.type === "run.retried" || event.type === "run.resumed") {
      // Run-level: signals delivered, a resume or retry asked by a person.
      note(run, event.type, at, pick(data, ["signalType", "by"]));
      return;
    }
    closeStepsBefore(event.step, event.seq, out);
    const step = stepSpan(
      event.step,
      event.type === "gate.decided" || event.type === "gate.approval_recorded" || event.type === "gate.assigned"
        ? at
        : time.groupStart,
    );
    if (at > step.end) step.end = at;

    switch (event.type) {
      case "model.decision": {
        finish(modelCallSpan(event, { runId, agent, step, time }, usage), event.seq, out, "client");
        return;
      }
      case "policy.error": {
        finish(policyErrorSpan(event, { runId, agent, step, time }), event.seq, out, "client");
        return;
      }
      case "tool.call": {
        finish(toolCallSpan(event, { runId, agent, step, time }, redaction), event.seq, out, "client");
        return;
      }
      case "gate.requested":
      case "effect.unknown_outcome": {
        const packetId = String(data.packetId);
        const tool = String(data.tool);
        const unknown = event.type === "effect.unknown_outcome";
        note(step, event.type, at, pick(data, ["tool", "packetId", "operationId", "attempt"]));
        waits.set(packetId, {
          spanId: spanIdOf(runId, `gate/${packetId}`),
          parentSpanId: step.spanId,
          stepSpanId: step.spanId,
          name: `await_decision ${tool}`,
          start: at,
          end: at,
          attributes: {
            "tether.span": "human_wait",
            "tether.gate.packet_id": packetId,
            "tether.gate.kind": unknown ? "UNKNOWN_OUTCOME" : "APPROVAL",
            "tether.gate.tool": tool,
            ...str("tether.gate.queue", unknown ? "attention" : data.queue),
            ...(num(data.requiredApprovals) !== undefined
              ? { "tether.gate.required_approvals": num(data.requiredApprovals)! }
              : {}),
            ...(unknown ? str("tether.tool.idempotency_key", data.operationId) : {}),
          },
          events: [],
        });
        return;
      }
      case "gate.approval_recorded":
      case "gate.assigned":
      case "gate.escalated": {
        const wait = waits.get(String(data.packetId));
        if (wait)
          note(wait, event.type, at, pick(data, ["by", "approvals", "required", "queue", "assignee", "from", "to"]));
        return;
      }
      case "gate.decided":
      case "gate.expired": {
        const packetId = String(data.packetId);
        const wait = waits.get(packetId);
        if (!wait) return;
        wait.end = at;
        const by = typeof data.by === "string" ? data.by : null;
        const reviewers = [
          ...new Set([
            ...wait.events
              .filter((e) => e.name === "gate.approval_recorded")
              .map((e) => String(e.attributes["tether.by"])),
            ...(by ? [by] : []),
          ]),
        ];
        Object.assign(wait.attributes, {
          "tether.gate.decision": event.type === "gate.expired" ? "expired" : String(data.decision),
          ...(by ? { "tether.gate.reviewer": by } : {}),
          ...(reviewers.length ? { "tether.gate.reviewers": reviewers } : {}),
          ...(num(data.waitedMs) !== undefined ? { "tether.gate.waited_ms": num(data.waitedMs)! } : {}),
        });
        finish(wait, event.seq, out);
        waits.delete(packetId);
        return;
      }
      default:
        // Everything else the step did, as events on its span, with only its identifiers and counts.
        note(
          step,
          event.type,
          at,
          pick(data, [
            "tool",
            "operationId",
            "idempotencyKey",
            "attempt",
            "effect",
            "ruleVersion",
            "afterApproval",
            "found",
            "try",
            "packetId",
            "decision",
            "signalType",
            "code",
            "until",
            "key",
            "ok",
            "childRunId",
            "agent",
            "status",
          ]),
        );
        if (typeof data.idempotencyKey === "string" && event.type === "effect.intent")
          step.attributes["tether.tool.idempotency_key"] = data.idempotencyKey;
    }
  }

  return {
    get seq() {
      return seq;
    },
    apply(events) {
      const out: FinishedSpan[] = [];
      let group: TraceEvent[] = [];
      for (const event of events) {
        if (event.seq <= seq) continue;
        if (group.length > 0 && event.at.getTime() !== group[0].at.getTime()) {
          applyGroup(group, out);
          group = [];
        }
        group.push(event);
      }
      if (group.length > 0) applyGroup(group, out);
      return out;
    },
  };
}
