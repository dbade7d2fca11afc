import type { Metadata } from "next";
import { ConsoleLink } from "@/components/shell/console-links";
import { EvalsTabs } from "@/components/evals/evals-tabs";
import { ImportDatasetForm } from "@/components/evals/import-dataset-form";
import { AccessDenied } from "@/components/shell/access-denied";
import { PageHeader } from "@/components/ui/page-header";
import { requirePageScope } from "@/lib/auth/session";
import { findDatasets } from "@/lib/queries/eval-records";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Import a dataset" };

export default async function ImportDatasetPage() {
  const { user, isAllowed } = await requirePageScope("admin:manage");
  if (!isAllowed) return <AccessDenied role={user.role} scope="admin:manage" />;
  const datasets = await findDatasets();
  return (
    <>
      <PageHeader
        title="Import a dataset"
        description={
          <>
            A JSONL file with one eval case a line (the format <code className="font-mono text-xs">npm run eval</code>{" "}
            reads and the dataset page exports). Every line is validated; if any is invalid, nothing is imported.
          </>
        }
        actions={
          <ConsoleLink href="/evals/datasets" className="text-sm text-blue-700 hover:underline">
            Back to datasets
          </ConsoleLink>
        }
      />
      <EvalsTabs active="datasets" />
      <ImportDatasetForm
        existing={datasets.map((d) => ({ name: d.name, caseCount: d.caseCount, version: d.version }))}
      />
    </>
  );
}
