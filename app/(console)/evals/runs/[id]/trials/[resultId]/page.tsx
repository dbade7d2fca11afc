import type { Metadata } from "next";
import { ConsoleLink } from "@/components/shell/console-links";
import { notFound } from "next/navigation";
import { DimensionScores } from "@/components/evals/dimension-scores";
import { PassBadge } from "@/components/evals/eval-badges";
import { EvalsTabs } from "@/components/evals/evals-tabs";
import { formatCount, formatMs, formatUsd } from "@/components/evals/format";
import { LedgerTable } from "@/components/evals/ledger-table";
import { TimeSplit } from "@/components/evals/time-split";
import { TraceEvents } from "@/components/evals/trace-events";
import { TrialChecks } from "@/components/evals/trial-checks";
import { Alert } from "@/components/ui/alert";
import { Card } from "@/components/ui/card";
import { JsonView } from "@/components/ui/json-view";
import { LabelledValue } from "@/components/ui/labelled-value";
import { PageHeader } from "@/components/ui/page-header";
import { getEvalRun } from "@/lib/evals/queries";
import { decodeParam, orNull } from "@/lib/queries/evals";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Eval trial" };

export default async function TrialPage({ params }: { params: Promise<{ id: string; resultId: string }> }) {
  const { id, resultId } = await params;
  const run = await orNull(getEvalRun(decodeParam(id)));
  const result = run?.results.find((r) => r.id === decodeParam(resultId));
  if (!run || !result) notFound();
  const runHref = `/evals/runs/${encodeURIComponent(run.id)}`;
  const figures: Array<[string, string]> = [
    ["Tokens", formatCount(result.tokens)],
    ["Cost", formatUsd(result.costUsd)],
    ["Wall time", formatMs(result.wallMs)],
  ];

  return (
    <>
      <PageHeader
        title={`Trial ${result.caseId} · ${result.fault}`}
        description={
          <span className="flex flex-wrap items-center gap-x-2 gap-y-1">
            <PassBadge passed={result.passed} />
            <span>agent {result.agent}</span>
            {result.runStatus && <span>· run ended {result.runStatus.toLowerCase().replaceAll("_", " ")}</span>}
            <span>
              · in eval run{" "}
              <ConsoleLink href={runHref} className="font-mono text-xs text-blue-700 underline">
                {run.id}
              </ConsoleLink>
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
        }
      />
      <EvalsTabs active="runs" />
      {result.error && (
        <div className="mb-4">
          <Alert tone="error" title="The trial hit an error">
            {result.error}
          </Alert>
        </div>
      )}
      <div className="mb-6 grid items-start gap-4 lg:grid-cols-2">
        <Card title="Cost and time">
          <dl className="mb-3 grid grid-cols-3 gap-2 text-sm">
            {figures.map(([label, value]) => (
              <LabelledValue key={label} label={label} className="tabular-nums">
                {value}
              </LabelledValue>
            ))}
          </dl>
          <TimeSplit humanWaitMs={result.humanWaitMs} machineMs={result.machineMs} />
        </Card>
        <Card title="Output">
          <JsonView value={result.output} label={result.output === null ? "null" : undefined} />
        </Card>
      </div>
      <div className="mb-6 space-y-4">
        <Card title="Checks" description="What the scorers verified, and why a check failed.">
          <TrialChecks checks={result.checks} />
        </Card>
        <Card
          title="Scores"
          description="This trial's score per dimension (— when the dimension does not apply), against the eval run's thresholds."
        >
          <DimensionScores scores={result.scores} thresholds={run.thresholds} />
        </Card>
      </div>
      <div className="space-y-4">
        <Card title="Ledger effects" description="What the sandbox systems recorded during the trial.">
          <LedgerTable rows={result.ledger} />
        </Card>
        <Card
          title="Trace of the run"
          description={
            result.runId
              ? `Run ${result.runId} lived in the trial's throwaway database; these are its events as kept with the result.`
              : "The events kept with the result."
          }
        >
          <TraceEvents events={result.trace} />
        </Card>
      </div>
    </>
  );
}
