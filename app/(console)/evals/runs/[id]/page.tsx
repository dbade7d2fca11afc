import type { Metadata } from "next";
import { ConsoleLink } from "@/components/shell/console-links";
import { notFound } from "next/navigation";
import { DimensionScores } from "@/components/evals/dimension-scores";
import { EvalRunFacts } from "@/components/evals/eval-run-facts";
import { EvalFigures } from "@/components/evals/eval-figures";
import { EvalRunProgress } from "@/components/evals/eval-run-progress";
import { EvalsTabs } from "@/components/evals/evals-tabs";
import { TrialsTable } from "@/components/evals/trials-table";
import { Alert } from "@/components/ui/alert";
import { Card } from "@/components/ui/card";
import { EmptyState } from "@/components/ui/empty-state";
import { PageHeader } from "@/components/ui/page-header";
import { findEvalRuns, getEvalRun } from "@/lib/queries/eval-records";
import { decodeParam, getEvalRunProgress, orNull } from "@/lib/queries/evals";
import { firstParam, type SearchParams } from "@/lib/queries/search-params";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Eval run" };

type EvalRunPageProps = { params: Promise<{ id: string }>; searchParams: Promise<SearchParams> };

export default async function EvalRunPage({ params, searchParams }: EvalRunPageProps) {
  const [{ id: rawId }, query] = await Promise.all([params, searchParams]);
  const id = decodeParam(rawId);
  const run = await orNull(getEvalRun(id));
  if (!run) notFound();
  const onlyFailed = firstParam(query.trials) === "failed";
  const [progress, sameDataset] = await Promise.all([
    run.status === "RUNNING" ? getEvalRunProgress(id) : null,
    findEvalRuns({ datasetName: run.datasetName, limit: 100 }),
  ]);
  // "Previous" = the eval run of the same dataset started just before this one (the list is newest first).
  const index = sameDataset.runs.findIndex((r) => r.id === run.id);
  const previous = index >= 0 ? sameDataset.runs[index + 1] : undefined;
  const shown = onlyFailed ? run.results.filter((r) => !r.passed) : run.results;
  const failedCount = run.results.filter((r) => !r.passed).length;
  const linkClass =
    "rounded border border-zinc-300 bg-white px-3 py-1.5 text-sm font-medium text-zinc-800 hover:bg-zinc-50";

  return (
    <>
      <PageHeader
        title={`Eval run ${run.id}`}
        description={<EvalRunFacts run={run} />}
        actions={
          <div className="flex gap-2">
            {previous && (
              <ConsoleLink
                href={`/evals/compare?a=${encodeURIComponent(previous.id)}&b=${encodeURIComponent(run.id)}`}
                className={linkClass}
              >
                Compare with the previous run
              </ConsoleLink>
            )}
            <ConsoleLink href={`/evals/compare?b=${encodeURIComponent(run.id)}`} className={linkClass}>
              Compare…
            </ConsoleLink>
          </div>
        }
      />
      <EvalsTabs active="runs" />
      {progress && <EvalRunProgress id={run.id} initial={progress} />}
      {run.status === "ERROR" && (
        <div className="mb-4">
          <Alert tone="error" title="This eval run did not finish">
            {run.error ?? "The harness stopped before scoring every trial."}
          </Alert>
        </div>
      )}
      {run.status === "FAILED" && run.failures.length > 0 && (
        <div className="mb-4">
          <Alert tone="warning" title="Below threshold: the eval run fails">
            <ul className="list-disc pl-5">
              {run.failures.map((failure) => (
                <li key={failure}>{failure}</li>
              ))}
            </ul>
          </Alert>
        </div>
      )}
      <div className="mb-6 grid items-start gap-4 xl:grid-cols-[minmax(0,3fr)_minmax(0,2fr)]">
        <Card title="Scores" description="Aggregate over all trials; the black mark is the threshold.">
          <DimensionScores scores={run.scores} thresholds={run.thresholds} />
        </Card>
        <Card
          title="Cost and time"
          description="Human wait is time a scripted reviewer took; machine time is the rest."
        >
          <EvalFigures figures={run.scores.figures} durationMs={run.durationMs} />
        </Card>
      </div>
      <div className="mb-2 flex flex-wrap items-baseline justify-between gap-2">
        <h2 className="text-sm font-semibold text-zinc-900">
          Trials{" "}
          <span className="font-normal text-zinc-500">
            ({run.results.length}, {failedCount} failed)
          </span>
        </h2>
        <nav aria-label="Filter trials" className="flex gap-3 text-sm">
          <ConsoleLink
            href={`/evals/runs/${encodeURIComponent(run.id)}`}
            aria-current={!onlyFailed ? "page" : undefined}
            className={!onlyFailed ? "font-medium text-zinc-900" : "text-blue-700 hover:underline"}
          >
            All trials
          </ConsoleLink>
          <ConsoleLink
            href={`/evals/runs/${encodeURIComponent(run.id)}?trials=failed`}
            aria-current={onlyFailed ? "page" : undefined}
            className={onlyFailed ? "font-medium text-zinc-900" : "text-blue-700 hover:underline"}
          >
            Failed only
          </ConsoleLink>
        </nav>
      </div>
      {shown.length === 0 ? (
        <EmptyState title={onlyFailed ? "No failed trials" : "No trials yet"}>
          {onlyFailed ? "Every trial of this eval run passed." : "Trials appear as the harness finishes them."}
        </EmptyState>
      ) : (
        <TrialsTable evalRunId={run.id} results={shown} thresholds={run.thresholds} />
      )}
    </>
  );
}
