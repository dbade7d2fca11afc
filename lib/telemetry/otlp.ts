import { SpanKind, SpanStatusCode, TraceFlags, type HrTime } from "@opentelemetry/api";
import { hrTimeDuration, millisToHrTime } from "@opentelemetry/core";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { defaultResource, resourceFromAttributes, type Resource } from "@opentelemetry/resources";
import { BatchSpanProcessor, type ReadableSpan, type SpanExporter } from "@opentelemetry/sdk-trace-base";
import type { SpanData } from "./span-data";

// Where finished spans go: OTLP/HTTP (JSON) through the OpenTelemetry SDK's batching processor and
// exporter, which read the standard variables themselves (OTEL_EXPORTER_OTLP_ENDPOINT or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, OTEL_EXPORTER_OTLP_HEADERS, OTEL_EXPORTER_OTLP_TIMEOUT,
// OTEL_BSP_SCHEDULE_DELAY, OTEL_BSP_MAX_QUEUE_SIZE …; OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES
// for the resource). The spans are built here, not by a tracer: their ids and times come from the run's record.

export type SpanSink = {
  export(spans: SpanData[]): void;
  /** Send what is queued now. */
  flush(): Promise<void>;
  shutdown(): Promise<void>;
};

export const SCOPE = { name: "tether", version: "0.1.0" };

export function createOtlpSink(
  opts: { url?: string; headers?: Record<string, string>; exporter?: SpanExporter; serviceName?: string } = {},
): SpanSink {
  const exporter =
    opts.exporter ??
    new OTLPTraceExporter({
      ...(opts.url ? { url: opts.url } : {}),
      ...(opts.headers ? { headers: opts.headers } : {}),
    });
  const processor = new BatchSpanProcessor(exporter);
  // defaultResource() reads OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES; "tether" unless they say otherwise.
  const resource = resourceFromAttributes({ "service.name": opts.serviceName ?? "tether" }).merge(
    withEnvOnly(defaultResource()),
  );
  return {
    export(spans) {
      for (const span of spans) processor.onEnd(toReadableSpan(span, resource));
    },
    flush: () => processor.forceFlush(),
    shutdown: () => processor.shutdown(),
  };
}

/** The default resource without its default service name (unknown_service:node), which would override ours. */
function withEnvOnly(resource: Resource): Resource {
  const name = resource.attributes["service.name"];
  if (typeof name === "string" && name.startsWith("unknown_service")) {
    const { ["service.name"]: _drop, ...rest } = resource.attributes;
    return resourceFromAttributes(rest);
  }
  return resource;
}

const KIND = { internal: SpanKind.INTERNAL, client: SpanKind.CLIENT } as const;
const STATUS = { unset: SpanStatusCode.UNSET, ok: SpanStatusCode.OK, error: SpanStatusCode.ERROR } as const;

export function toReadableSpan(span: SpanData, resource: Resource): ReadableSpan {
  const startTime: HrTime = millisToHrTime(span.start.getTime());
  const endTime: HrTime = millisToHrTime(span.end.getTime());
  const context = { traceId: span.traceId, spanId: span.spanId, traceFlags: TraceFlags.SAMPLED };
  return {
    name: span.name,
    kind: KIND[span.kind],
    spanContext: () => context,
    parentSpanContext: span.parentSpanId
      ? { traceId: span.traceId, spanId: span.parentSpanId, traceFlags: TraceFlags.SAMPLED, isRemote: true }
      : undefined,
    startTime,
    endTime,
    status: { code: STATUS[span.status.code], ...(span.status.message ? { message: span.status.message } : {}) },
    attributes: span.attributes,
    links: (span.links ?? []).map((l) => ({
      context: { traceId: l.traceId, spanId: l.spanId, traceFlags: TraceFlags.SAMPLED, isRemote: true },
      attributes: l.attributes,
    })),
    events: span.events.map((e) => ({ name: e.name, time: millisToHrTime(e.at.getTime()), attributes: e.attributes })),
    duration: hrTimeDuration(startTime, endTime),
    ended: true,
    resource,
    instrumentationScope: SCOPE,
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  };
}
