import type { Metadata } from "next";
import { ComparePicker } from "@/components/evals/compare-picker";
import { CompareView } from "@/components/evals/compare-view";
import { NoEvalRuns } from "@/components/evals/empty-evals";
import { EvalsTabs } from "@/components/evals/evals-tabs";
import { Alert } from "@/components/ui/alert";
import { PageHeader } from "@/components/ui/page-header";
import { compareEvalRuns, findEvalRuns } from "@/lib/evals/queries";
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
          {a && b && a === b && <Alert tone="warning">Choose two different eval runs.</Alert>}
          {a && b && a !== b && !comparison && (
            <Alert tone="error">One of the eval runs does not exist (any more).</Alert>
          )}
          {comparison && <CompareView comparison={comparison} />}
          {(!a || !b) && (
            <p className="text-sm text-zinc-500">Choose a baseline and a candidate to see what changed.</p>
          )}
        </>
      )}
    </>
  );
}
