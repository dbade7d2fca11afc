import type { Metadata } from "next";
import { ConsoleLink } from "@/components/shell/console-links";
import { DatasetFilter, EvalRunsPagination } from "@/components/evals/dataset-filter";
import { NoEvalRuns } from "@/components/evals/empty-evals";
import { EvalRunsTable } from "@/components/evals/eval-runs-table";
import { EvalsTabs } from "@/components/evals/evals-tabs";
import { ScoreHistoryChart } from "@/components/evals/score-history-chart";
import { Card } from "@/components/ui/card";
import { PageHeader } from "@/components/ui/page-header";
import { findDatasets, findEvalRuns, scoreHistory } from "@/lib/queries/eval-records";
import { DEFAULT_THRESHOLDS } from "@/lib/evals/spec";
import { firstParam, type SearchParams } from "@/lib/queries/search-params";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Evals" };

type EvalsPageProps = { searchParams: Promise<SearchParams> };

export default async function EvalsPage({ searchParams }: EvalsPageProps) {
  const params = await searchParams;
  const dataset = firstParam(params.dataset) || undefined;
  const cursor = firstParam(params.cursor) || undefined;
  const [{ runs, nextCursor }, datasets, latest] = await Promise.all([
    findEvalRuns({ datasetName: dataset, cursor, limit: 25 }),
    findDatasets(),
    findEvalRuns({ limit: 1 }),
  ]);
  // Scores of different datasets do not belong on one line: without a filter, chart the latest run's dataset.
  const chartDataset = dataset ?? latest.runs[0]?.datasetName;
  const history = chartDataset ? await scoreHistory({ datasetName: chartDataset, limit: 50 }) : [];
  const thresholds =
    runs.find((r) => r.datasetName === chartDataset)?.thresholds ?? latest.runs[0]?.thresholds ?? DEFAULT_THRESHOLDS;
  const names = [
    ...new Set([...datasets.map((d) => d.name), ...(latest.runs[0] ? [latest.runs[0].datasetName] : [])]),
  ].sort();

  return (
    <>
      <PageHeader
        title="Evals"
        description="Journey evals: each case of a dataset runs under a fault schedule and is scored per dimension."
        actions={
          <ConsoleLink
            href="/evals/compare"
            className="rounded border border-zinc-300 bg-white px-3 py-1.5 text-sm font-medium text-zinc-800 hover:bg-zinc-50"
          >
            Compare two eval runs
          </ConsoleLink>
        }
      />
      <EvalsTabs active="runs" />
      {latest.runs.length === 0 ? (
        <NoEvalRuns />
      ) : (
        <>
          <DatasetFilter names={names} active={dataset} />
          {history.length > 0 && (
            <Card
              className="mb-6"
              title={`Scores over eval runs · ${chartDataset}`}
              description="Each finished eval run of the dataset, oldest left; the dashed line is the threshold, red dots are under it."
            >
              <ScoreHistoryChart points={history} thresholds={thresholds} />
            </Card>
          )}
          {runs.length === 0 ? <NoEvalRuns datasetName={dataset} /> : <EvalRunsTable runs={runs} />}
          <EvalRunsPagination dataset={dataset} isFirstPage={!cursor} nextCursor={nextCursor} />
        </>
      )}
    </>
  );
}
