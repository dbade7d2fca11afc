import { ConsoleLink } from "@/components/shell/console-links";
import type { EvalResultDetail, EvalRunDetail } from "@/lib/queries/eval-records";
import { PassBadge } from "./eval-badges";
import { EvalRunLink } from "./eval-links";

/** The trial page's header line: pass or fail, the agent, how its run ended, and links up to the eval run and the case. */
export function TrialSummary({ run, result }: { run: EvalRunDetail; result: EvalResultDetail }) {
  return (
    <span className="flex flex-wrap items-center gap-x-2 gap-y-1">
      <PassBadge passed={result.passed} />
      <span>agent {result.agent}</span>
      {result.runStatus && <span>· run ended {result.runStatus.toLowerCase().replaceAll("_", " ")}</span>}
      <span>
        · in eval run <EvalRunLink id={run.id} className="font-mono text-xs text-blue-700 underline" />
      </span>
      {run.datasetId && (
        <ConsoleLink
          href={`/evals/datasets/${encodeURIComponent(run.datasetName)}/cases/${encodeURIComponent(result.caseId)}`}
          className="text-blue-700 underline"
        >
          · the case
        </ConsoleLink>
      )}
    </span>
  );
}
