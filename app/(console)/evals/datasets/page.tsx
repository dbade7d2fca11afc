import type { Metadata } from "next";
import { ConsoleLink } from "@/components/shell/console-links";
import { DatasetsTable } from "@/components/evals/datasets-table";
import { EvalCommand } from "@/components/evals/empty-evals";
import { EvalsTabs } from "@/components/evals/evals-tabs";
import { EmptyState } from "@/components/ui/empty-state";
import { PageHeader } from "@/components/ui/page-header";
import { can } from "@/lib/auth/rbac";
import { requirePageUser } from "@/lib/auth/session";
import { findDatasets } from "@/lib/queries/eval-records";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Eval datasets" };

export default async function DatasetsPage() {
  const [user, datasets] = await Promise.all([requirePageUser(), findDatasets()]);
  // Hiding the button is a courtesy: the import action itself refuses anyone without admin:manage.
  const canImport = can(user.role, "admin:manage");
  return (
    <>
      <PageHeader
        title="Evals"
        description="Datasets of journey-eval cases: input, world set-up, scripted reviewer answers and expectations."
        actions={
          canImport ? (
            <ConsoleLink
              href="/evals/datasets/import"
              className="rounded border border-transparent bg-blue-700 px-3 py-1.5 text-sm font-medium text-white hover:bg-blue-800"
            >
              Import dataset
            </ConsoleLink>
          ) : undefined
        }
      />
      <EvalsTabs active="datasets" />
      {datasets.length === 0 ? (
        <EmptyState title="No datasets yet">
          <p>
            Run <EvalCommand /> to import the default dataset and evaluate it
            {canImport ? ", or import a JSONL dataset here" : ""}.
          </p>
        </EmptyState>
      ) : (
        <DatasetsTable datasets={datasets} />
      )}
    </>
  );
}
