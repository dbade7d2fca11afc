import { type Column, DataTable } from "@/components/ui/data-table";
import { DIMENSIONS, type Dimension } from "@/lib/evals/spec";
import { ScoreValue } from "./eval-badges";
import { DIMENSION_LABELS, formatScore, judgeScore, type ThresholdState } from "./format";

const VERDICT_TEXT = { pass: "met", fail: "below", "n/a": "—" } as const;

type Scores = Partial<Record<Dimension, number | null>>;
type Thresholds = Partial<Record<Dimension, number>>;

type DimensionRow = {
  dimension: Dimension;
  value: number | null;
  threshold: number | undefined;
  verdict: ThresholdState;
};

const COLUMNS: Column<DimensionRow>[] = [
  { header: "Dimension", className: "font-medium", cell: (row) => DIMENSION_LABELS[row.dimension] },
  { header: "Score", headerClassName: "w-1/3", cell: (row) => <ScoreBar {...row} /> },
  {
    header: "Value",
    align: "right",
    cell: (row) => <ScoreValue value={row.value} threshold={row.threshold} />,
  },
  {
    header: "Threshold",
    align: "right",
    className: "tabular-nums text-zinc-600",
    cell: (row) => formatScore(row.threshold),
  },
  {
    header: "Verdict",
    className: (row) => (row.verdict === "fail" ? "font-medium text-red-700" : "text-zinc-600"),
    cell: (row) => (row.value === null ? "not applicable" : VERDICT_TEXT[row.verdict]),
  },
];

/** Each dimension's aggregate score against its threshold, with a bar (the number is always in text). */
export function DimensionScores({ scores, thresholds }: { scores: Scores; thresholds: Thresholds }) {
  return (
    <DataTable
      caption="Aggregate score per dimension and its threshold"
      columns={COLUMNS}
      rows={dimensionRows(scores, thresholds)}
      rowKey={(row) => row.dimension}
    />
  );
}

function dimensionRows(scores: Scores, thresholds: Thresholds): DimensionRow[] {
  return DIMENSIONS.map((dimension) => {
    const value = scores[dimension] ?? null;
    const threshold = thresholds[dimension];
    return { dimension, value, threshold, verdict: judgeScore(value, threshold) };
  });
}

/** The score as a bar, the threshold as a mark on it; hidden from screen readers (the value is in text). */
function ScoreBar({ value, threshold, verdict }: DimensionRow) {
  return (
    <div aria-hidden className="relative h-2.5 w-full rounded bg-zinc-100">
      {value !== null && (
        <div
          className={`h-2.5 rounded ${verdict === "fail" ? "bg-red-600" : "bg-emerald-600"}`}
          style={{ width: `${Math.max(0, Math.min(1, value)) * 100}%` }}
        />
      )}
      {threshold !== undefined && (
        <div
          className="absolute -top-0.5 h-3.5 w-0.5 bg-zinc-900"
          style={{ left: `calc(${threshold * 100}% - 1px)` }}
        />
      )}
    </div>
  );
}
