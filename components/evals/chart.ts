import type { Dimension } from "@/lib/evals/spec";

// Pure geometry for the score-history chart (inline SVG, no chart library): scores are 0..1 on the
// y axis, eval runs are evenly spaced on the x axis (oldest left). A run without a score for the
// dimension (null) breaks the line instead of drawing it through zero. Unit-tested.

export type ChartBox = { width: number; height: number; top: number; right: number; bottom: number; left: number };

export const DEFAULT_BOX: ChartBox = { width: 320, height: 140, top: 10, right: 12, bottom: 22, left: 36 };

export type ChartInput = { evalRunId: string; label: string; scores: Partial<Record<Dimension, number | null>> };

export type ChartPoint = { evalRunId: string; label: string; value: number | null; x: number; y: number | null };

export type ScoreSeries = {
  dimension: Dimension;
  points: ChartPoint[];
  /** SVG path data; one "M … L …" segment per unbroken run of scores. */
  path: string;
  thresholdY: number | null;
  yTicks: Array<{ value: number; y: number }>;
  latest: number | null;
};

/** A linear map from [d0, d1] onto [r0, r1]; a zero-width domain maps to the middle of the range. */
export function scaleLinear([d0, d1]: readonly [number, number], [r0, r1]: readonly [number, number]) {
  return (value: number) => (d1 === d0 ? (r0 + r1) / 2 : r0 + ((value - d0) / (d1 - d0)) * (r1 - r0));
}

const round = (n: number) => Math.round(n * 10) / 10;

export function buildScoreSeries(
  runs: ChartInput[],
  dimension: Dimension,
  threshold: number | null | undefined,
  box: ChartBox = DEFAULT_BOX,
): ScoreSeries {
  const x =
    runs.length <= 1
      ? () => round((box.left + box.width - box.right) / 2)
      : (i: number) => round(scaleLinear([0, runs.length - 1], [box.left, box.width - box.right])(i));
  // y grows downwards in SVG: score 1 at the top edge of the plot, 0 at the bottom.
  const y = (v: number) => round(scaleLinear([0, 1], [box.height - box.bottom, box.top])(Math.min(1, Math.max(0, v))));
  const points: ChartPoint[] = runs.map((run, i) => {
    const raw = run.scores[dimension];
    const value = typeof raw === "number" && Number.isFinite(raw) ? raw : null;
    return { evalRunId: run.evalRunId, label: run.label, value, x: x(i), y: value === null ? null : y(value) };
  });
  let path = "";
  let isDrawing = false;
  for (const point of points) {
    if (point.y === null) {
      isDrawing = false;
      continue;
    }
    path += `${path ? " " : ""}${isDrawing ? "L" : "M"}${point.x},${point.y}`;
    isDrawing = true;
  }
  const latest = [...points].reverse().find((p) => p.value !== null)?.value ?? null;
  return {
    dimension,
    points,
    path,
    thresholdY: threshold === null || threshold === undefined ? null : y(threshold),
    yTicks: [0, 0.5, 1].map((value) => ({ value, y: y(value) })),
    latest,
  };
}
