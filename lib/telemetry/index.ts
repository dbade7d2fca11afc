import type { Logger, RuntimeStore } from "@/lib/runtime";
import { createOtlpSink, type SpanSink } from "./otlp";
import { getConfig, type Config } from "@/lib/config";
import { withTraceExport, type TraceExport } from "./store";

// OpenTelemetry for Tether (docs/observability.md): when an OTLP endpoint is configured, each run is
// exported as one trace. The composition root wraps the runtime's store (withTraceExportFromEnv);
// the route that starts runs records an incoming traceparent (withIncomingTraceContext).

export { withIncomingTraceContext } from "./trace-context";
export { withTraceExport, type TraceExport } from "./store";
export { createOtlpSink, type SpanSink } from "./otlp";

/** OTLP is configured (an endpoint is set) and not switched off (OTEL_SDK_DISABLED, OTEL_TRACES_EXPORTER=none). */
export function isTraceExportEnabled(config: Config = getConfig()): boolean {
  return config.telemetry.isEnabled;
}

// One sink per process (the runtime is rebuilt when the database changes; the exporter is not).
const globalForTelemetry = globalThis as unknown as { tetherSpanSink?: SpanSink; tetherTraceStores?: Set<TraceExport> };
const stores = (globalForTelemetry.tetherTraceStores ??= new Set());

/** The store as given when OTLP is not configured; else the store that also exports each run's trace. */
export function withTraceExportFromEnv(
  store: RuntimeStore,
  opts: { logger?: Logger; config?: Config } = {},
): RuntimeStore {
  const config = opts.config ?? getConfig();
  if (!isTraceExportEnabled(config)) return store;
  const { redaction, protocol } = config.telemetry;
  if (protocol && protocol !== "http/json")
    opts.logger?.warn("Tether exports traces as OTLP/HTTP JSON only; OTEL_EXPORTER_OTLP_PROTOCOL is ignored", {
      protocol,
    });
  globalForTelemetry.tetherSpanSink ??= createOtlpSink();
  const traced = withTraceExport(store, { sink: globalForTelemetry.tetherSpanSink, redaction, logger: opts.logger });
  stores.add(traced);
  return traced;
}

/** Send every span derived so far, then stop the exporter (a worker's graceful stop). */
export async function shutdownTraceExport(): Promise<void> {
  await Promise.all([...stores].map((s) => s.flush()));
  await globalForTelemetry.tetherSpanSink?.shutdown();
  globalForTelemetry.tetherSpanSink = undefined;
  stores.clear();
}
