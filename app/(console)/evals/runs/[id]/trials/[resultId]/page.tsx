import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { DimensionScores } from "@/components/evals/dimension-scores";
import { EvalsTabs } from "@/components/evals/evals-tabs";
import { TrialChecks } from "@/components/evals/trial-checks";
import { TrialFigures } from "@/components/evals/trial-figures";
import { TrialRunRecord } from "@/components/evals/trial-run-record";
import { TrialSummary } from "@/components/evals/trial-summary";
import { Alert } from "@/components/ui/alert";
import { Card } from "@/components/ui/card";
import { JsonView } from "@/components/ui/json-view";
import { PageHeader } from "@/components/ui/page-header";
import { getEvalRun } from "@/lib/queries/eval-records";
import { decodeParam, orNull } from "@/lib/queries/evals";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Eval trial" };

type TrialPageProps = { params: Promise<{ id: string; resultId: string }> };

export default async function TrialPage({ params }: TrialPageProps) {
  const { id, resultId } = await params;
  const run = await orNull(getEvalRun(decodeParam(id)));
  const result = run?.results.find((r) => r.id === decodeParam(resultId));
  if (!run || !result) notFound();

  return (
    <>
      <PageHeader
        title={`Trial ${result.caseId} · ${result.fault}`}
        description={<TrialSummary run={run} result={result} />}
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
          <TrialFigures result={result} />
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
      <TrialRunRecord result={result} />
    </>
  );
}
