import type { TraceEvent } from "@/lib/runtime/types";
import { redactPayload, type Redaction } from "./redact";
import { num, str, type OpenSpan } from "./span-data";
import { spanIdOf } from "./trace-context";

// The spans of the calls a step makes — the model's (chat) and the tools' (execute_tool) — named and
// attributed after the OpenTelemetry GenAI conventions, so a GenAI-aware backend reads them as such. Each
// is built from its one event; where it sits in the run's tree and in time is the fold's (spans.ts).

/** When the events of one commit happened: the commit's start, and each tool call placed back from its end. */
export type CommitTimes = { groupStart: Date; toolTimes: Map<number, { start: Date; end: Date }> };
export type CallSpanContext = { runId: string; agent: string; step: OpenSpan; time: CommitTimes };

/** A model call (model.decision); it also tags its step with the plan step and adds to the run's token usage. */
export function modelCallSpan(
  event: TraceEvent,
  { runId, agent, step, time }: CallSpanContext,
  usage: { input: number; output: number },
): OpenSpan {
  const { data, at } = event;
  const decision = (data.decision ?? {}) as Record<string, unknown>;
  const u = (data.usage ?? null) as { inputTokens?: number; outputTokens?: number; costUsd?: number } | null;
  const raw = (data.raw ?? {}) as { model?: unknown; attempts?: unknown };
  const model = typeof raw.model === "string" ? raw.model : null;
  // "openai.chat:gpt-4o-mini" (the AI SDK's provider id, then the model); a scripted policy is the agent itself.
  const [providerId, ...rest] = model ? model.split(":") : [];
  const provider = model ? providerId.split(".")[0] : "tether.scripted";
  const requestModel = model ? rest.join(":") || model : agent;
  const end =
    time.toolTimes.size > 0 ? new Date(Math.min(...[...time.toolTimes.values()].map((t) => t.start.getTime()))) : at;
  const latency = num(data.latencyMs);
  const start = latency !== undefined ? new Date(end.getTime() - latency) : time.groupStart;
  if (typeof decision.planStep === "string") step.attributes["tether.plan.step"] = decision.planStep;
  usage.input += u?.inputTokens ?? 0;
  usage.output += u?.outputTokens ?? 0;
  return {
    spanId: spanIdOf(runId, `event/${event.seq}`),
    parentSpanId: step.spanId,
    name: `chat ${requestModel}`,
    start: start < end ? start : end,
    end,
    attributes: {
      "tether.span": "model",
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": provider,
      "gen_ai.request.model": requestModel,
      ...(u?.inputTokens !== undefined ? { "gen_ai.usage.input_tokens": u.inputTokens } : {}),
      ...(u?.outputTokens !== undefined ? { "gen_ai.usage.output_tokens": u.outputTokens } : {}),
      ...(u?.costUsd !== undefined ? { "tether.model.cost_usd": u.costUsd } : {}),
      ...(num(raw.attempts) !== undefined ? { "tether.model.attempts": num(raw.attempts)! } : {}),
      // What was decided, never with what: the arguments and the reasoning stay in the run's record.
      "tether.decision.kind": String(decision.kind ?? "unknown"),
      ...str("tether.decision.tool", decision.tool),
    },
    events: [],
  };
}

/** A policy that failed to decide (policy.error): a model call that ended in an error. */
export function policyErrorSpan(event: TraceEvent, { runId, agent, step, time }: CallSpanContext): OpenSpan {
  const at = event.at;
  return {
    spanId: spanIdOf(runId, `event/${event.seq}`),
    parentSpanId: step.spanId,
    name: `chat ${agent}`,
    start: time.groupStart,
    end: at,
    attributes: { "tether.span": "model", "gen_ai.operation.name": "chat", "error.type": "policy_error" },
    events: [],
    error: "the policy failed",
  };
}

/** One attempt of a tool call (tool.call), its payloads redacted. */
export function toolCallSpan(
  event: TraceEvent,
  { runId, step, time }: CallSpanContext,
  redaction: Redaction,
): OpenSpan {
  const { data, at } = event;
  const t = time.toolTimes.get(event.seq) ?? { start: at, end: at };
  const tool = String(data.tool);
  const key = typeof data.idempotencyKey === "string" ? data.idempotencyKey : null;
  const ok = data.errorClass === undefined;
  return {
    spanId: spanIdOf(runId, `event/${event.seq}`),
    parentSpanId: step.spanId,
    name: `execute_tool ${tool}`,
    start: t.start,
    end: t.end,
    attributes: {
      "tether.span": "tool",
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": tool,
      "gen_ai.tool.type": "function",
      "gen_ai.tool.call.id": key ?? `${runId}/${event.step}/${tool}`,
      "gen_ai.tool.call.arguments": redactPayload(data.args, redaction),
      ...(ok ? { "gen_ai.tool.call.result": redactPayload(data.result, redaction) } : {}),
      ...str("tether.tool.semantics", data.semantics),
      ...(key ? { "tether.tool.idempotency_key": key } : {}),
      "tether.tool.attempt": num(data.attempt) ?? 1,
      ...(num(data.latencyMs) !== undefined ? { "tether.tool.latency_ms": num(data.latencyMs)! } : {}),
      ...(ok ? {} : { "error.type": String(data.errorClass), ...str("tether.tool.outcome", data.outcome) }),
    },
    events: [],
    ...(ok ? {} : { error: `${tool} failed (${String(data.errorClass)})` }),
  };
}
