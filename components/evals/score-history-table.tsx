import { type Column, DataTable } from "@/components/ui/data-table";
import { Timestamp } from "@/components/ui/timestamp";
import type { ScorePoint } from "@/lib/queries/eval-records";
import { DIMENSIONS } from "@/lib/evals/spec";
import { EvalRunLink } from "./eval-links";
import { DIMENSION_LABELS, formatScore } from "./format";

const COLUMNS: Column<ScorePoint>[] = [
  {
    header: "Eval run",
    cell: (point) => <EvalRunLink id={point.evalRunId} className="font-mono text-xs text-blue-700 hover:underline" />,
  },
  { header: "Started", className: "text-xs", cell: (point) => <Timestamp value={point.startedAt} /> },
  { header: "Code", className: "font-mono text-xs", cell: (point) => point.codeVersion },
  ...DIMENSIONS.map((d): Column<ScorePoint> => ({
    header: DIMENSION_LABELS[d],
    align: "right",
    className: "tabular-nums",
    cell: (point) => formatScore(point.scores[d]),
  })),
];

/** The chart's data, as a table: the accessible alternative to the SVG. */
export function ScoreHistoryTable({ points }: { points: ScorePoint[] }) {
  return (
    <div className="mt-2">
      <DataTable
        caption="Scores of each finished eval run, oldest first"
        columns={COLUMNS}
        rows={points}
        rowKey={(point) => point.evalRunId}
      />
    </div>
  );
}
