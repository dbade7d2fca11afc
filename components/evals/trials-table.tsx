import { ConsoleLink } from "@/components/shell/console-links";
import { type Column, DataTable } from "@/components/ui/data-table";
import type { EvalResultDetail } from "@/lib/queries/eval-records";
import { DIMENSIONS, type Dimension } from "@/lib/evals/spec";
import { PassBadge, ScoreValue } from "./eval-badges";
import { DIMENSION_LABELS, formatCount, formatMs, formatUsd, judgeScore } from "./format";

function trialColumns(evalRunId: string, thresholds: Partial<Record<Dimension, number>>): Column<EvalResultDetail>[] {
  return [
    {
      header: "Case",
      cell: (result) => (
        <>
          <span className="font-mono text-xs">{result.caseId}</span>
          <div className="text-xs text-zinc-500">{result.agent}</div>
        </>
      ),
    },
    { header: "Fault", className: "font-mono text-xs", cell: (result) => result.fault },
    {
      header: "Outcome",
      cell: (result) => (
        <>
          <PassBadge passed={result.passed} />
          {result.runStatus && (
            <div className="mt-0.5 text-xs text-zinc-600">
              run {result.runStatus.toLowerCase().replaceAll("_", " ")}
            </div>
          )}
        </>
      ),
    },
    {
      header: "Scores below threshold",
      className: "text-xs",
      cell: (result) => <TrialScores scores={result.scores} thresholds={thresholds} />,
    },
    { header: "Failed checks", className: "text-xs", cell: (result) => <FailedChecks result={result} /> },
    {
      header: "Cost · tokens",
      align: "right",
      className: "text-xs tabular-nums",
      cell: (result) => (
        <>
          {formatUsd(result.costUsd)}
          <div className="text-zinc-500">{formatCount(result.tokens)} tok</div>
        </>
      ),
    },
    {
      header: "Human wait · machine",
      align: "right",
      className: "text-xs tabular-nums",
      cell: (result) => (
        <>
          {formatMs(result.humanWaitMs)}
          <div className="text-zinc-500">{formatMs(result.machineMs)}</div>
        </>
      ),
    },
    {
      header: "Trace",
      isHeaderHidden: true,
      cell: (result) => (
        <ConsoleLink
          href={`/evals/runs/${encodeURIComponent(evalRunId)}/trials/${encodeURIComponent(result.id)}`}
          className="text-xs whitespace-nowrap text-blue-700 hover:underline"
          aria-label={`Trace of ${result.caseId} under ${result.fault}`}
        >
          Trace →
        </ConsoleLink>
      ),
    },
  ];
}

/** One row per trial (case × fault): outcome, scores, what failed and why, cost and time. */
export function TrialsTable({
  evalRunId,
  results,
  thresholds,
}: {
  evalRunId: string;
  results: EvalResultDetail[];
  thresholds: Partial<Record<Dimension, number>>;
}) {
  return (
    <DataTable
      caption="Trials of this eval run: each case under each fault"
      columns={trialColumns(evalRunId, thresholds)}
      rows={results}
      rowKey={(result) => result.id}
      rowClassName={(result) => (result.passed ? "hover:bg-zinc-50" : "bg-red-50/40 hover:bg-red-50")}
    />
  );
}

/** Only the scores under their threshold, so a long table stays readable; the trial page has them all. */
function TrialScores({
  scores,
  thresholds,
}: {
  scores: EvalResultDetail["scores"];
  thresholds: Partial<Record<Dimension, number>>;
}) {
  const below = DIMENSIONS.filter((d) => judgeScore(scores[d], thresholds[d]) === "fail");
  if (below.length === 0) return <span className="text-emerald-800">all at or above threshold</span>;
  return (
    <ul className="space-y-0.5">
      {below.map((d) => (
        <li key={d} className="whitespace-nowrap">
          {DIMENSION_LABELS[d]} <ScoreValue value={scores[d]} threshold={thresholds[d]} />
        </li>
      ))}
    </ul>
  );
}

/** The first failed checks with their reason (the trial page has them all), and the harness's error if any. */
function FailedChecks({ result }: { result: EvalResultDetail }) {
  const failed = result.checks.filter((c) => !c.ok);
  return (
    <>
      {result.error && <p className="text-orange-800">Error: {result.error}</p>}
      {failed.length === 0 && !result.error ? (
        <span className="text-zinc-500">none</span>
      ) : (
        <ul className="space-y-0.5">
          {failed.slice(0, 4).map((check, i) => (
            <li key={i}>
              <span className="font-medium text-red-800">{check.name}</span>
              {check.detail && <span className="text-zinc-700"> — {check.detail}</span>}
            </li>
          ))}
          {failed.length > 4 && <li className="text-zinc-500">and {failed.length - 4} more</li>}
        </ul>
      )}
    </>
  );
}
