import { type Column, DataTable } from "@/components/ui/data-table";
import { EmptyState } from "@/components/ui/empty-state";
import { JsonView } from "@/components/ui/json-view";
import { Timestamp } from "@/components/ui/timestamp";
import type { LedgerRow } from "@/lib/evals/types";

const COLUMNS: Column<LedgerRow>[] = [
  { header: "Effect", className: "font-mono text-xs whitespace-nowrap", cell: (row) => `${row.system}.${row.action}` },
  { header: "Operation", className: "font-mono text-xs text-zinc-600", cell: (row) => row.operationId ?? "—" },
  { header: "Time", className: "text-xs", cell: (row) => <Timestamp value={row.at} /> },
  { header: "Data", className: "w-full max-w-0", cell: (row) => <JsonView value={row.data} previewLength={100} /> },
];

/** What the sandbox systems recorded during the trial: the effects that really happened, once each (or not). */
export function LedgerTable({ rows }: { rows: LedgerRow[] }) {
  if (rows.length === 0)
    return <EmptyState title="No effects">The sandbox systems recorded nothing for this trial.</EmptyState>;
  return <DataTable caption="Ledger of the sandbox systems during the trial" columns={COLUMNS} rows={rows} />;
}
