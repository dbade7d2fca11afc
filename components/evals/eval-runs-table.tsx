import { ConsoleLink } from "@/components/shell/console-links";
import { Table, Td, Th } from "@/components/ui/table";
import { Timestamp } from "@/components/ui/timestamp";
import type { EvalRunSummary } from "@/lib/evals/queries";
import { DIMENSIONS } from "@/lib/evals/spec";
import { EvalStatusBadge, ScoreValue } from "./eval-badges";
import { DIMENSION_LABELS, judgeScore, shortCode } from "./format";

// Short column headings, with the full name for pointers and screen readers.
const SHORT: Record<(typeof DIMENSIONS)[number], string> = {
  completion: "Compl.",
  toolSelection: "Tools",
  stateAccuracy: "State",
  recovery: "Recov.",
  approvalCompliance: "Approv.",
  cost: "Cost",
  latency: "Latency",
};

export function EvalRunsTable({ runs }: { runs: EvalRunSummary[] }) {
  return (
    <Table>
      <caption className="sr-only">
        Eval runs, newest first, with each dimension&apos;s score (▼ marks a score below its threshold)
      </caption>
      <thead>
        <tr>
          <Th>Eval run</Th>
          <Th>Dataset</Th>
          <Th>Ran with</Th>
          <Th>Status</Th>
          {DIMENSIONS.map((d) => (
            <Th key={d} className="text-right">
              <abbr title={DIMENSION_LABELS[d]} className="no-underline">
                {SHORT[d]}
              </abbr>
            </Th>
          ))}
          <Th className="text-right">Trials passed</Th>
        </tr>
      </thead>
      <tbody>
        {runs.map((run) => (
          <tr key={run.id} className="hover:bg-zinc-50">
            <Td>
              <ConsoleLink
                href={`/evals/runs/${encodeURIComponent(run.id)}`}
                className="font-mono text-xs text-blue-700 hover:underline"
              >
                {run.id}
              </ConsoleLink>
              <div className="text-xs text-zinc-500">
                <Timestamp value={run.startedAt} />
              </div>
            </Td>
            <Td>
              <ConsoleLink
                href={`/evals/datasets/${encodeURIComponent(run.datasetName)}`}
                className="text-blue-700 hover:underline"
              >
                {run.datasetName}
              </ConsoleLink>
              <div className="font-mono text-xs text-zinc-500" title="dataset version">
                {run.datasetVersion.slice(0, 8)}
              </div>
            </Td>
            <Td className="text-xs">
              <span className="font-mono" title={`code version ${run.codeVersion}`}>
                {shortCode(run.codeVersion)}
              </span>{" "}
              · {run.policy}
              <div className="text-zinc-600">
                faults <span className="font-mono">{run.faults}</span>
                {run.caseFilter && (
                  <span title={run.caseFilter}>
                    {" "}
                    · {run.caseFilter.split(",").length} case{run.caseFilter.split(",").length === 1 ? "" : "s"}
                  </span>
                )}
              </div>
            </Td>
            <Td>
              <EvalStatusBadge status={run.status} />
              <div className="mt-0.5 text-xs">
                <ThresholdVerdict run={run} />
              </div>
            </Td>
            {DIMENSIONS.map((d) => (
              <Td key={d} className="text-right">
                <ScoreValue value={run.scores[d]} threshold={run.thresholds[d]} />
              </Td>
            ))}
            <Td className="text-right tabular-nums">
              {run.passedCount}/{run.trialCount}
            </Td>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}

/** Which dimensions an eval run fell short on (the harness's own failure lines when scores are missing). */
export function ThresholdVerdict({
  run,
}: {
  run: Pick<EvalRunSummary, "status" | "failures" | "scores" | "thresholds">;
}) {
  if (run.status === "RUNNING") return <span className="text-zinc-600">running…</span>;
  if (run.status === "ERROR") return <span className="text-orange-800">did not finish</span>;
  const below = DIMENSIONS.filter((d) => judgeScore(run.scores[d], run.thresholds[d]) === "fail");
  if (below.length === 0 && run.failures.length === 0) return <span className="text-emerald-800">thresholds met</span>;
  return (
    <span className="text-red-700">
      below: {below.length > 0 ? below.map((d) => DIMENSION_LABELS[d]).join(", ") : run.failures.join("; ")}
    </span>
  );
}
