// A tiny bar chart in inline SVG (no chart library): one bar per step, the value on hover (<title>), and
// a text description for screen readers.

type BarChartProps = {
  title: string;
  unit: string;
  values: Array<{ label: string; value: number }>;
  color: string;
  format: (value: number) => string;
};

export function BarChart({ title, unit, values, color, format }: BarChartProps) {
  const width = 320;
  const height = 96;
  const max = Math.max(...values.map((v) => v.value), 0);
  const gap = values.length > 40 ? 0 : 2;
  const barWidth = values.length ? Math.max(1, (width - gap * (values.length - 1)) / values.length) : 0;
  const peak = values.reduce((best, v) => (v.value > best.value ? v : best), values[0] ?? { label: "", value: 0 });
  const description =
    max === 0
      ? `${title}: none recorded.`
      : `${title}: ${values.length} steps, highest ${format(peak.value)} at ${peak.label}.`;
  return (
    <figure className="min-w-0">
      <figcaption className="mb-1 flex justify-between text-xs text-zinc-600">
        <span className="font-medium text-zinc-800">{title}</span>
        <span>
          max {format(max)} {unit}
        </span>
      </figcaption>
      <svg
        viewBox={`0 0 ${width} ${height}`}
        role="img"
        aria-label={description}
        className="h-24 w-full rounded bg-zinc-50"
        preserveAspectRatio="none"
      >
        {values.map((v, i) => {
          const h = max > 0 ? Math.max(v.value > 0 ? 2 : 0, (v.value / max) * (height - 4)) : 0;
          return (
            <rect key={v.label} x={i * (barWidth + gap)} y={height - h} width={barWidth} height={h} fill={color}>
              <title>{`${v.label}: ${format(v.value)} ${unit}`}</title>
            </rect>
          );
        })}
      </svg>
    </figure>
  );
}
