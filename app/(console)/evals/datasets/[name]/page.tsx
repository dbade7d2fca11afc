import type { Metadata } from "next";
import { ConsoleLink } from "@/components/shell/console-links";
import { notFound } from "next/navigation";
import { CasesTable } from "@/components/evals/cases-table";
import { EvalsTabs } from "@/components/evals/evals-tabs";
import { Alert } from "@/components/ui/alert";
import { EmptyState } from "@/components/ui/empty-state";
import { PageHeader } from "@/components/ui/page-header";
import { Timestamp } from "@/components/ui/timestamp";
import { getDataset } from "@/lib/queries/eval-records";
import { decodeParam, orNull } from "@/lib/queries/evals";
import { intParam, type SearchParams } from "@/lib/queries/search-params";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Eval dataset" };

type DatasetPageProps = { params: Promise<{ name: string }>; searchParams: Promise<SearchParams> };

export default async function DatasetPage({ params, searchParams }: DatasetPageProps) {
  const [{ name }, query] = await Promise.all([params, searchParams]);
  const dataset = await orNull(getDataset(decodeParam(name)));
  if (!dataset) notFound();
  const imported = intParam(query.imported);
  const linkClass =
    "rounded border border-zinc-300 bg-white px-3 py-1.5 text-sm font-medium text-zinc-800 hover:bg-zinc-50";

  return (
    <>
      <PageHeader
        title={`Dataset ${dataset.name}`}
        description={
          <>
            {dataset.description && <p>{dataset.description}</p>}
            <p>
              {dataset.caseCount} case{dataset.caseCount === 1 ? "" : "s"} · agents {dataset.agents.join(", ") || "—"} ·
              version <code className="font-mono text-xs">{dataset.version}</code>
              {dataset.source && <> · from {dataset.source}</>} · updated <Timestamp value={dataset.updatedAt} />
            </p>
          </>
        }
        actions={
          <div className="flex gap-2">
            <ConsoleLink href={`/evals?dataset=${encodeURIComponent(dataset.name)}`} className={linkClass}>
              Eval runs of this dataset
            </ConsoleLink>
            {/* A plain link: the browser downloads the route's attachment with the session cookie. */}
            <a
              href={`/api/console/evals/datasets/${encodeURIComponent(dataset.name)}/export`}
              download
              className={linkClass}
            >
              Export JSONL
            </a>
          </div>
        }
      />
      <EvalsTabs active="datasets" />
      {imported !== undefined && (
        <div className="mb-4">
          <Alert tone="success">
            Imported {imported} case{imported === 1 ? "" : "s"}. The dataset is now at version {dataset.version}.
          </Alert>
        </div>
      )}
      {dataset.cases.length === 0 ? (
        <EmptyState title="This dataset has no cases" />
      ) : (
        <CasesTable datasetName={dataset.name} cases={dataset.cases} />
      )}
    </>
  );
}
