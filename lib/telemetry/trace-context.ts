import { AsyncLocalStorage } from "node:async_hooks";
import { createHash } from "node:crypto";

// W3C trace context (https://www.w3.org/TR/trace-context/) for runs: the ids of a run's spans are
// derived from the run id, so any process (a worker that took over after a crash, the console that
// records a decision) names the same span the same way without asking anyone.

export type TraceContext = { traceparent: string; tracestate?: string };
export type ParsedTraceparent = { traceId: string; spanId: string; sampled: boolean };

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(?:-.*)?$/;
const TRACESTATE_MAX = 512;

/** A valid traceparent header, or null (malformed, all-zero ids, version ff): an invalid one is ignored, as the spec says. */
export function parseTraceparent(header: string | null | undefined): ParsedTraceparent | null {
  const match = TRACEPARENT.exec((header ?? "").trim().toLowerCase());
  if (!match) return null;
  const [, version, traceId, spanId, flags] = match;
  if (version === "ff" || (version === "00" && header!.trim().length !== 55)) return null;
  if (/^0+$/.test(traceId) || /^0+$/.test(spanId)) return null;
  return { traceId, spanId, sampled: (parseInt(flags, 16) & 1) === 1 };
}

/** The trace context of an incoming request, kept only when its traceparent is valid. */
export function traceContextFromHeaders(headers: Headers): TraceContext | null {
  const traceparent = headers.get("traceparent");
  if (!parseTraceparent(traceparent)) return null;
  const tracestate = headers.get("tracestate")?.trim();
  return {
    traceparent: traceparent!.trim().toLowerCase(),
    ...(tracestate && tracestate.length <= TRACESTATE_MAX ? { tracestate } : {}),
  };
}

const hex = (text: string, chars: number) => createHash("sha256").update(text).digest("hex").slice(0, chars);

/** A run's trace id when no caller gave one: the same in every process, for ever. */
export const traceIdOfRun = (runId: string) => hex(`tether/trace/${runId}`, 32);
/** A span id named by (run, key): e.g. "run", "step/3", "event/17", "gate/pkt_…". */
export const spanIdOf = (runId: string, key: string) => hex(`tether/span/${runId}/${key}`, 16);

// The incoming request's trace context, for the one store call that records it with the new run
// (lib/telemetry/store.ts). Kept on globalThis: Next.js may load this module once for the route
// bundle and once for instrumentation, and both must see the same storage.
const globalForTrace = globalThis as unknown as { tetherIncomingTrace?: AsyncLocalStorage<TraceContext> };
const incoming = (globalForTrace.tetherIncomingTrace ??= new AsyncLocalStorage<TraceContext>());

export function runWithTraceContext<T>(context: TraceContext | null, fn: () => T): T {
  return context ? incoming.run(context, fn) : fn();
}

export function currentTraceContext(): TraceContext | undefined {
  return incoming.getStore();
}

/** Wrap a route handler: a valid `traceparent` on the request becomes the parent of the run it starts. */
export function withIncomingTraceContext<C>(handler: (request: Request, context: C) => Promise<Response>) {
  return (request: Request, context: C): Promise<Response> =>
    runWithTraceContext(traceContextFromHeaders(request.headers), () => handler(request, context));
}
