import type { ScorePoint } from "@/lib/queries/eval-records";
import { DIMENSIONS, type Dimension } from "@/lib/evals/spec";
import { buildScoreSeries, DEFAULT_BOX, type ChartBox, type ChartInput } from "./chart";
import { DIMENSION_LABELS, formatScore } from "./format";
import { ScoreHistoryTable } from "./score-history-table";

// One small chart per dimension (score 0–100 % over eval runs, oldest left, the threshold dashed), plus
// the same numbers as a table for screen readers and for anyone who wants exact values.

type ScoreHistoryChartProps = { points: ScorePoint[]; thresholds: Partial<Record<Dimension, number>> };

export function ScoreHistoryChart({ points, thresholds }: ScoreHistoryChartProps) {
  const runs: ChartInput[] = points.map((p, i) => ({
    evalRunId: p.evalRunId,
    label: `#${i + 1} ${p.startedAt.toISOString().slice(0, 16).replace("T", " ")} · ${p.codeVersion}`,
    scores: p.scores,
  }));
  return (
    <div>
      <ul className="grid gap-3 sm:grid-cols-2 xl:grid-cols-4">
        {DIMENSIONS.map((dimension) => (
          <li key={dimension}>
            <DimensionChart runs={runs} dimension={dimension} threshold={thresholds[dimension]} />
          </li>
        ))}
      </ul>
      <details className="mt-3">
        <summary className="cursor-pointer text-sm text-blue-700 hover:underline">Show the scores as a table</summary>
        <ScoreHistoryTable points={points} />
      </details>
    </div>
  );
}

function DimensionChart({
  runs,
  dimension,
  threshold,
}: {
  runs: ChartInput[];
  dimension: Dimension;
  threshold: number | undefined;
}) {
  const series = buildScoreSeries(runs, dimension, threshold);
  const box = DEFAULT_BOX;
  const label = DIMENSION_LABELS[dimension];
  const titleId = `chart-${dimension}-title`;
  const descId = `chart-${dimension}-desc`;
  const scored = series.points.filter((p) => p.value !== null);
  const description =
    scored.length === 0
      ? `No eval run has a ${label.toLowerCase()} score yet.`
      : `${label} over ${runs.length} eval run${runs.length === 1 ? "" : "s"}, oldest first: ${scored.map((p) => formatScore(p.value)).join(", ")}.` +
        (threshold !== undefined ? ` Threshold ${formatScore(threshold)}.` : "");
  return (
    <figure className="rounded border border-zinc-200 bg-white p-2">
      <figcaption className="flex items-baseline justify-between px-1 text-xs">
        <span className="font-medium text-zinc-800">{label}</span>
        <span className="tabular-nums text-zinc-600">latest {formatScore(series.latest)}</span>
      </figcaption>
      <svg
        viewBox={`0 0 ${box.width} ${box.height}`}
        role="img"
        aria-labelledby={titleId}
        aria-describedby={descId}
        className="mt-1 h-auto w-full"
      >
        <title id={titleId}>{`${label} score over eval runs`}</title>
        <desc id={descId}>{description}</desc>
        {series.yTicks.map((tick) => (
          <g key={tick.value}>
            <AcrossPlot box={box} y={tick.y} className="stroke-zinc-200" />
            <text x={box.left - 4} y={tick.y + 3} textAnchor="end" className="fill-zinc-600 text-[9px]">
              {tick.value * 100}%
            </text>
          </g>
        ))}
        {series.thresholdY !== null && (
          <AcrossPlot box={box} y={series.thresholdY} className="stroke-amber-600" strokeDasharray="4 3" />
        )}
        <path d={series.path} fill="none" className="stroke-blue-700" strokeWidth={1.75} strokeLinejoin="round" />
        {series.points.map((point) =>
          point.y === null ? null : (
            <circle
              key={point.evalRunId}
              cx={point.x}
              cy={point.y}
              r={3}
              className={
                threshold !== undefined && point.value !== null && point.value + 1e-9 < threshold
                  ? "fill-red-600"
                  : "fill-blue-700"
              }
            >
              <title>{`${point.label}: ${formatScore(point.value)}`}</title>
            </circle>
          ),
        )}
        <text x={box.left} y={box.height - 6} className="fill-zinc-600 text-[9px]">
          oldest
        </text>
        <text x={box.width - box.right} y={box.height - 6} textAnchor="end" className="fill-zinc-600 text-[9px]">
          newest
        </text>
      </svg>
    </figure>
  );
}

/** A horizontal line across the plot area at height y: a grid line, or the dashed threshold. */
function AcrossPlot({
  box,
  y,
  className,
  strokeDasharray,
}: {
  box: ChartBox;
  y: number;
  className: string;
  strokeDasharray?: string;
}) {
  return (
    <line
      x1={box.left}
      x2={box.width - box.right}
      y1={y}
      y2={y}
      className={className}
      strokeWidth={1}
      strokeDasharray={strokeDasharray}
    />
  );
}
