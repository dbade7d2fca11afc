import { RunIdLink } from "@/components/runs/run-id-link";
import { type Column, DataTable } from "@/components/ui/data-table";
import { EmptyState } from "@/components/ui/empty-state";
import { Timestamp } from "@/components/ui/timestamp";
import type { recentFires } from "@/lib/queries/schedules";
import { FireOutcome } from "./schedules-table";

type Row = Awaited<ReturnType<typeof recentFires>>[number];

const COLUMNS: Column<Row>[] = [
  { header: "Tick (UTC)", cell: (f) => <Timestamp value={f.tick} /> },
  { header: "Schedule", cell: (f) => f.schedule },
  { header: "Outcome", cell: (f) => <FireOutcome outcome={f.outcome} /> },
  {
    header: "Run",
    cell: (f) =>
      f.runId ? (
        <RunIdLink runId={f.runId} className="font-mono text-xs text-blue-700 hover:underline" />
      ) : (
        <span className="text-zinc-400">—</span>
      ),
  },
  { header: "Detail", className: "text-xs text-zinc-600", cell: (f) => f.detail },
];

/** The latest ticks and what each started, or a note that nothing has fired yet. */
export function FiresTable({ fires }: { fires: Row[] }) {
  if (fires.length === 0) {
    return <EmptyState title="Nothing has fired yet">A schedule&apos;s ticks appear here as they fire.</EmptyState>;
  }
  return <DataTable columns={COLUMNS} rows={fires} rowKey={(f) => f.id} rowTestId="fire-row" />;
}
