import { Timestamp } from "@/components/ui/timestamp";
import type { EvalRunSummary } from "@/lib/queries/eval-records";
import { EvalStatusBadge } from "./eval-badges";
import { DatasetLink } from "./eval-links";
import { formatMs, shortCode } from "./format";

/** What an eval run ran: dataset at a version, code, policy, fault schedule, agent versions, when. */
export function EvalRunFacts({ run }: { run: EvalRunSummary }) {
  const agents = Object.entries(run.agentVersions);
  return (
    <div className="space-y-1">
      <p className="flex flex-wrap items-center gap-x-2 gap-y-1">
        <EvalStatusBadge status={run.status} />
        <span>
          dataset <DatasetLink name={run.datasetName} className="text-blue-700 underline" /> @{" "}
          <code className="font-mono text-xs">{run.datasetVersion}</code>
        </span>
        <span>
          · code{" "}
          <code className="font-mono text-xs" title={run.codeVersion}>
            {shortCode(run.codeVersion)}
          </code>
        </span>
        <span>· policy {run.policy}</span>
        <span>
          · faults <code className="font-mono text-xs">{run.faults}</code>
        </span>
        {run.caseFilter && (
          <span>
            · cases <code className="font-mono text-xs">{run.caseFilter}</code>
          </span>
        )}
      </p>
      <p>
        started <Timestamp value={run.startedAt} />
        {run.finishedAt && (
          <>
            {" "}
            · finished <Timestamp value={run.finishedAt} /> ({formatMs(run.durationMs)})
          </>
        )}
        {agents.length > 0 && <> · agents {agents.map(([slug, version]) => `${slug}@${version}`).join(", ")}</>}
      </p>
    </div>
  );
}
