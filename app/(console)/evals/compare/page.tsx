import type { Metadata } from "next";
import { ComparePicker } from "@/components/evals/compare-picker";
import { CompareResult } from "@/components/evals/compare-result";
import { NoEvalRuns } from "@/components/evals/empty-evals";
import { EvalsTabs } from "@/components/evals/evals-tabs";
import { PageHeader } from "@/components/ui/page-header";
import { compareEvalRuns, findEvalRuns } from "@/lib/queries/eval-records";
import { orNull } from "@/lib/queries/evals";
import { firstParam, type SearchParams } from "@/lib/queries/search-params";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Compare eval runs" };

export default async function ComparePage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const params = await searchParams;
  const a = firstParam(params.a) || undefined;
  const b = firstParam(params.b) || undefined;
  const [{ runs }, comparison] = await Promise.all([
    findEvalRuns({ limit: 100 }),
    a && b && a !== b ? orNull(compareEvalRuns(a, b)) : null,
  ]);

  return (
    <>
      <PageHeader
        title="Compare eval runs"
        description="Two eval runs side by side: scores per dimension and the trials (case × fault) that broke, got fixed or scored differently."
      />
      <EvalsTabs active="compare" />
      {runs.length === 0 ? (
        <NoEvalRuns />
      ) : (
        <>
          <ComparePicker runs={runs} a={a} b={b} />
          <CompareResult a={a} b={b} comparison={comparison} />
        </>
      )}
    </>
  );
}
