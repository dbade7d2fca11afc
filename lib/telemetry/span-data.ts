// What a span is made of as Tether hands it on: the fold (spans.ts) and the call spans (call-spans.ts) build
// spans of these shapes from a run's trace events, and the exporter (otlp.ts) sends them. The helpers below
// read an event's loose data into attribute values, so both builders read it the same way.

export type AttributeValue = string | number | boolean | string[];
export type Attributes = Record<string, AttributeValue>;
export type SpanEventData = { name: string; at: Date; attributes: Attributes };
/** A link to another span's context: a child run's root links to the parent's step that started it. */
export type SpanLink = { traceId: string; spanId: string; attributes: Attributes };
export type SpanData = {
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  name: string;
  kind: "internal" | "client";
  start: Date;
  end: Date;
  attributes: Attributes;
  events: SpanEventData[];
  status: { code: "unset" | "ok" | "error"; message?: string };
  links?: SpanLink[];
};
export type FinishedSpan = { seq: number; span: SpanData };

/** A span still being built: the fold gives it its end, events and outcome as the run's events go by. */
export type OpenSpan = {
  spanId: string;
  parentSpanId: string | null;
  name: string;
  start: Date;
  end: Date;
  attributes: Attributes;
  events: SpanEventData[];
  error?: string;
  links?: SpanLink[];
};

export function str(key: string, value: unknown): Attributes {
  return typeof value === "string" && value ? { [key]: value } : {};
}

export function num(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

/** Scalar fields named in `keys`, as `tether.<key>` attributes (strings cut short). */
export function pick(data: Record<string, unknown>, keys: string[]): Attributes {
  const out: Attributes = {};
  for (const key of keys) {
    const value = data[key];
    if (typeof value === "string") out[`tether.${key}`] = value.slice(0, 200);
    else if (typeof value === "number" || typeof value === "boolean") out[`tether.${key}`] = value;
  }
  return out;
}
