import { ConsoleLink } from "@/components/shell/console-links";
import { Alert } from "@/components/ui/alert";
import { Card } from "@/components/ui/card";
import { Table, Td, Th } from "@/components/ui/table";
import type { EvalRunComparison, EvalRunSummary } from "@/lib/evals/queries";
import { CompareChanges } from "./compare-changes";
import { ScoreValue } from "./eval-badges";
import { EvalRunFacts } from "./eval-run-facts";
import { DIMENSION_LABELS, formatScoreDelta } from "./format";

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
        <Table>
          <caption className="sr-only">Aggregate score per dimension in A and B</caption>
          <thead>
            <tr>
              <Th>Dimension</Th>
              <Th className="text-right">A</Th>
              <Th className="text-right">B</Th>
              <Th className="text-right">Change</Th>
            </tr>
          </thead>
          <tbody>
            {comparison.scoreDeltas.map(({ dimension, before, after }) => {
              const delta = before !== null && after !== null ? after - before : 0;
              return (
                <tr key={dimension}>
                  <Td>{DIMENSION_LABELS[dimension]}</Td>
                  <Td className="text-right">
                    <ScoreValue value={before} threshold={a.thresholds[dimension]} />
                  </Td>
                  <Td className="text-right">
                    <ScoreValue value={after} threshold={b.thresholds[dimension]} />
                  </Td>
                  <Td
                    className={`text-right tabular-nums ${delta < -1e-9 ? "font-medium text-red-700" : delta > 1e-9 ? "text-emerald-800" : "text-zinc-500"}`}
                  >
                    {formatScoreDelta(before, after) || "—"}
                  </Td>
                </tr>
              );
            })}
          </tbody>
        </Table>
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
          {label}:{" "}
          <ConsoleLink
            href={`/evals/runs/${encodeURIComponent(run.id)}`}
            className="font-mono text-xs text-blue-700 underline"
          >
            {run.id}
          </ConsoleLink>
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
