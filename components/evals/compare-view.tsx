import { Alert } from "@/components/ui/alert";
import { Card } from "@/components/ui/card";
import { type Column, DataTable } from "@/components/ui/data-table";
import type { EvalRunComparison, EvalRunSummary } from "@/lib/queries/eval-records";
import { CompareChanges } from "./compare-changes";
import { ScoreValue } from "./eval-badges";
import { EvalRunLink } from "./eval-links";
import { EvalRunFacts } from "./eval-run-facts";
import { DIMENSION_LABELS, formatScoreDelta } from "./format";

type ScoreDelta = EvalRunComparison["scoreDeltas"][number];

/** Red for a drop, green for a gain, grey for none (the change is B minus A). */
function changeTone({ before, after }: ScoreDelta): string {
  const change = before !== null && after !== null ? after - before : 0;
  if (change < -1e-9) return "font-medium text-red-700";
  return change > 1e-9 ? "text-emerald-800" : "text-zinc-500";
}

function scoreColumns(a: EvalRunSummary, b: EvalRunSummary): Column<ScoreDelta>[] {
  return [
    { header: "Dimension", cell: (row) => DIMENSION_LABELS[row.dimension] },
    {
      header: "A",
      align: "right",
      cell: (row) => <ScoreValue value={row.before} threshold={a.thresholds[row.dimension]} />,
    },
    {
      header: "B",
      align: "right",
      cell: (row) => <ScoreValue value={row.after} threshold={b.thresholds[row.dimension]} />,
    },
    {
      header: "Change",
      align: "right",
      className: (row) => `tabular-nums ${changeTone(row)}`,
      cell: (row) => formatScoreDelta(row.before, row.after) || "—",
    },
  ];
}

/** Two eval runs side by side: what each ran, the score per dimension, and the trials that changed. */
export function CompareView({ comparison }: { comparison: EvalRunComparison }) {
  const { a, b } = comparison;
  return (
    <div className="space-y-6">
      {!comparison.sameDataset && (
        <Alert tone="warning">
          The two eval runs used different datasets (or dataset versions): cases may differ for that reason alone.
        </Alert>
      )}
      <div className="grid gap-4 lg:grid-cols-2">
        <Side label="A · baseline" run={a} />
        <Side label="B · candidate" run={b} />
      </div>
      <Card
        title="Scores"
        description={
          comparison.sameCode
            ? "Same code version: differences come from the dataset, policy or faults."
            : "Change is B minus A, in percentage points."
        }
      >
        <DataTable
          caption="Aggregate score per dimension in A and B"
          columns={scoreColumns(a, b)}
          rows={comparison.scoreDeltas}
          rowKey={(row) => row.dimension}
        />
      </Card>
      <section aria-labelledby="changed-trials">
        <h2 id="changed-trials" className="mb-2 text-sm font-semibold text-zinc-900">
          Trials that changed{" "}
          <span className="font-normal text-zinc-500">
            ({comparison.changed.length} changed, {comparison.unchanged} unchanged)
          </span>
        </h2>
        <CompareChanges changes={comparison.changed} />
      </section>
    </div>
  );
}

function Side({ label, run }: { label: string; run: EvalRunSummary }) {
  return (
    <Card
      title={
        <>
          {label}: <EvalRunLink id={run.id} className="font-mono text-xs text-blue-700 underline" />
        </>
      }
    >
      <div className="text-sm text-zinc-600">
        <EvalRunFacts run={run} />
        <p className="mt-1 tabular-nums">
          {run.passedCount} of {run.trialCount} trials passed
        </p>
      </div>
    </Card>
  );
}
