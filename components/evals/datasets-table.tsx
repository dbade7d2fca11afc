import { type Column, DataTable } from "@/components/ui/data-table";
import { Timestamp } from "@/components/ui/timestamp";
import type { DatasetSummary } from "@/lib/queries/eval-records";
import { EvalStatusBadge } from "./eval-badges";
import { DatasetLink, EvalRunLink } from "./eval-links";

const COLUMNS: Column<DatasetSummary>[] = [
  {
    header: "Dataset",
    cell: (dataset) => (
      <>
        <DatasetLink name={dataset.name} className="font-medium text-blue-700 hover:underline" />
        {dataset.description && <div className="text-xs text-zinc-500">{dataset.description}</div>}
      </>
    ),
  },
  { header: "Cases", align: "right", className: "tabular-nums", cell: (dataset) => dataset.caseCount },
  { header: "Agents", className: "text-xs", cell: (dataset) => dataset.agents.join(", ") },
  { header: "Version", className: "font-mono text-xs", cell: (dataset) => dataset.version },
  { header: "Updated", className: "text-xs", cell: (dataset) => <Timestamp value={dataset.updatedAt} /> },
  { header: "Last eval run", cell: (dataset) => <LastRun run={dataset.lastRun} /> },
];

export function DatasetsTable({ datasets }: { datasets: DatasetSummary[] }) {
  return (
    <DataTable columns={COLUMNS} rows={datasets} rowKey={(dataset) => dataset.id} rowClassName="hover:bg-zinc-50" />
  );
}

function LastRun({ run }: { run: DatasetSummary["lastRun"] }) {
  if (!run) return <span className="text-xs text-zinc-500">never run</span>;
  return (
    <span className="flex flex-wrap items-center gap-2">
      <EvalRunLink id={run.id} className="text-xs text-blue-700 hover:underline">
        <Timestamp value={run.startedAt} />
      </EvalRunLink>
      <EvalStatusBadge status={run.status} />
    </span>
  );
}
