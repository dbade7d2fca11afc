import { Badge } from "@/components/ui/badge";
import { type Column, DataTable } from "@/components/ui/data-table";
import { StatusBadge } from "@/components/ui/status-badge";
import { Timestamp } from "@/components/ui/timestamp";
import type { RunListItem } from "@/lib/queries/run-list";
import { RunIdLink } from "./run-id-link";

const COLUMNS: Column<RunListItem>[] = [
  {
    header: "Run",
    cell: (run) => (
      <>
        <RunIdLink
          runId={run.id}
          className="font-mono text-xs text-blue-700 hover:underline focus-visible:outline-2 focus-visible:outline-blue-600"
        />
        {run.parentRunId && <span className="block text-[11px] text-zinc-500">fork of {run.parentRunId}</span>}
        {run.spawnedByRunId && <span className="block text-[11px] text-zinc-500">child of {run.spawnedByRunId}</span>}
      </>
    ),
  },
  {
    header: "Agent",
    cell: (run) => (
      <>
        {run.agentSlug}
        <span className="text-zinc-500">@{run.agentVersion}</span>
      </>
    ),
  },
  { header: "Status", cell: (run) => <RunStatusCell run={run} /> },
  {
    header: "Step",
    align: "right",
    className: "tabular-nums",
    cell: (run) => run.step ?? <span className="text-zinc-500">—</span>,
  },
  { header: "Created", cell: (run) => <Timestamp value={run.createdAt} /> },
  { header: "Updated", cell: (run) => <Timestamp value={run.updatedAt} /> },
];

export function RunsTable({ runs }: { runs: RunListItem[] }) {
  return (
    <DataTable
      caption="Runs, newest first"
      columns={COLUMNS}
      rows={runs}
      rowKey={(run) => run.id}
      rowClassName="hover:bg-zinc-50"
    />
  );
}

/** The run's status, whether its stored state could be read, and its error. */
function RunStatusCell({ run }: { run: RunListItem }) {
  return (
    <>
      <div className="flex flex-wrap items-center gap-1">
        <StatusBadge status={run.status} />
        {run.stateError && (
          <Badge tone="red" isDashed title={`The stored state could not be read: ${run.stateError}`}>
            State unreadable
          </Badge>
        )}
      </div>
      {run.error && (
        <p className="mt-0.5 max-w-xs truncate text-xs text-red-800" title={run.error}>
          {run.error}
        </p>
      )}
    </>
  );
}
