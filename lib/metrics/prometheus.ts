// The Prometheus text exposition format, version 0.0.4 (what GET /api/metrics answers): one # HELP and one
// # TYPE line per family, then its samples. Label values are escaped (\ → \\, " → \", newline → \n) and HELP
// text too (\ and newline), so a name a person typed (an agent, a queue, a tool) can never break a line or
// forge a series. A histogram writes cumulative _bucket{le=…} samples ending with le="+Inf", then _sum and
// _count, for each of its label sets. Names are checked: a bad one is a bug here, not data.

export const PROMETHEUS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

export type Labels = Record<string, string>;

export type Sample = { labels: Labels; value: number };

/** One label set's histogram: `buckets[i]` observations ≤ the family's `bounds[i]` (cumulative). */
export type HistogramSeries = { labels: Labels; buckets: number[]; count: number; sum: number };

export type MetricFamily =
  | { name: string; help: string; type: "gauge" | "counter"; samples: Sample[] }
  | { name: string; help: string; type: "histogram"; bounds: readonly number[]; series: HistogramSeries[] };

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

export const escapeLabelValue = (value: string) =>
  value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
const escapeHelp = (text: string) => text.replace(/\\/g, "\\\\").replace(/\n/g, "\\n");

/** A sample value as Go's ParseFloat reads it: NaN, +Inf, -Inf, or a JS number's decimal form. */
export function formatValue(value: number): string {
  if (Number.isNaN(value)) return "NaN";
  if (value === Infinity) return "+Inf";
  if (value === -Infinity) return "-Inf";
  return String(value);
}

function formatLabels(labels: Labels): string {
  const entries = Object.entries(labels);
  if (entries.length === 0) return "";
  for (const [name] of entries)
    if (!LABEL_NAME.test(name) || name.startsWith("__")) throw new Error(`invalid Prometheus label name: ${name}`);
  return `{${entries.map(([name, value]) => `${name}="${escapeLabelValue(value)}"`).join(",")}}`;
}

function familyLines(family: MetricFamily): string[] {
  if (!METRIC_NAME.test(family.name)) throw new Error(`invalid Prometheus metric name: ${family.name}`);
  const lines = [`# HELP ${family.name} ${escapeHelp(family.help)}`, `# TYPE ${family.name} ${family.type}`];
  if (family.type !== "histogram") {
    for (const sample of family.samples)
      lines.push(`${family.name}${formatLabels(sample.labels)} ${formatValue(sample.value)}`);
    return lines;
  }
  for (const series of family.series) {
    if ("le" in series.labels) throw new Error(`${family.name}: "le" is the histogram's own label`);
    if (series.buckets.length !== family.bounds.length)
      throw new Error(`${family.name}: ${series.buckets.length} buckets for ${family.bounds.length} bounds`);
    family.bounds.forEach((bound, i) => {
      lines.push(
        `${family.name}_bucket${formatLabels({ ...series.labels, le: formatValue(bound) })} ${formatValue(series.buckets[i])}`,
      );
    });
    lines.push(`${family.name}_bucket${formatLabels({ ...series.labels, le: "+Inf" })} ${formatValue(series.count)}`);
    lines.push(`${family.name}_sum${formatLabels(series.labels)} ${formatValue(series.sum)}`);
    lines.push(`${family.name}_count${formatLabels(series.labels)} ${formatValue(series.count)}`);
  }
  return lines;
}

/** The families as one exposition (each name once; a family without samples still says what it is). */
export function formatPrometheus(families: MetricFamily[]): string {
  const names = new Set<string>();
  for (const family of families) {
    if (names.has(family.name)) throw new Error(`metric family ${family.name} twice`);
    names.add(family.name);
  }
  return families.flatMap(familyLines).join("\n") + "\n";
}
