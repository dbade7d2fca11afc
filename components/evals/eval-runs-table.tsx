import { type Column, DataTable } from "@/components/ui/data-table";
import { Timestamp } from "@/components/ui/timestamp";
import type { EvalRunSummary } from "@/lib/queries/eval-records";
import { DIMENSIONS } from "@/lib/evals/spec";
import { BELOW_THRESHOLD_MARK, EvalStatusBadge, ScoreValue } from "./eval-badges";
import { DatasetLink, EvalRunLink } from "./eval-links";
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

const COLUMNS: Column<EvalRunSummary>[] = [
  {
    header: "Eval run",
    cell: (run) => (
      <>
        <EvalRunLink id={run.id} className="font-mono text-xs text-blue-700 hover:underline" />
        <div className="text-xs text-zinc-500">
          <Timestamp value={run.startedAt} />
        </div>
      </>
    ),
  },
  {
    header: "Dataset",
    cell: (run) => (
      <>
        <DatasetLink name={run.datasetName} />
        <div className="font-mono text-xs text-zinc-500" title="dataset version">
          {run.datasetVersion.slice(0, 8)}
        </div>
      </>
    ),
  },
  { header: "Ran with", className: "text-xs", cell: (run) => <RanWith run={run} /> },
  {
    header: "Status",
    cell: (run) => (
      <>
        <EvalStatusBadge status={run.status} />
        <div className="mt-0.5 text-xs">
          <ThresholdVerdict run={run} />
        </div>
      </>
    ),
  },
  ...DIMENSIONS.map((d): Column<EvalRunSummary> => ({
    header: (
      <abbr title={DIMENSION_LABELS[d]} className="no-underline">
        {SHORT[d]}
      </abbr>
    ),
    align: "right",
    cell: (run) => <ScoreValue value={run.scores[d]} threshold={run.thresholds[d]} />,
  })),
  {
    header: "Trials passed",
    align: "right",
    className: "tabular-nums",
    cell: (run) => `${run.passedCount}/${run.trialCount}`,
  },
];

export function EvalRunsTable({ runs }: { runs: EvalRunSummary[] }) {
  return (
    <DataTable
      caption={`Eval runs, newest first, with each dimension's score (${BELOW_THRESHOLD_MARK} marks a score below its threshold)`}
      columns={COLUMNS}
      rows={runs}
      rowKey={(run) => run.id}
      rowClassName="hover:bg-zinc-50"
    />
  );
}

/** The code version, policy, faults and case filter an eval run ran with. */
function RanWith({ run }: { run: EvalRunSummary }) {
  const caseCount = run.caseFilter ? run.caseFilter.split(",").length : 0;
  return (
    <>
      <span className="font-mono" title={`code version ${run.codeVersion}`}>
        {shortCode(run.codeVersion)}
      </span>{" "}
      · {run.policy}
      <div className="text-zinc-600">
        faults <span className="font-mono">{run.faults}</span>
        {run.caseFilter && (
          <span title={run.caseFilter}>
            {" "}
            · {caseCount} case{caseCount === 1 ? "" : "s"}
          </span>
        )}
      </div>
    </>
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
