import { ConsoleLink } from "@/components/shell/console-links";
import { Badge } from "@/components/ui/badge";
import { StatusBadge } from "@/components/ui/status-badge";
import { Table, Td, Th } from "@/components/ui/table";
import { Timestamp } from "@/components/ui/timestamp";
import type { RunListItem } from "@/lib/queries/run-list";

export function RunsTable({ runs }: { runs: RunListItem[] }) {
  return (
    <Table>
      <caption className="sr-only">Runs, newest first</caption>
      <thead>
        <tr>
          <Th>Run</Th>
          <Th>Agent</Th>
          <Th>Status</Th>
          <Th className="text-right">Step</Th>
          <Th>Created</Th>
          <Th>Updated</Th>
        </tr>
      </thead>
      <tbody>
        {runs.map((run) => (
          <tr key={run.id} className="hover:bg-zinc-50">
            <Td>
              <ConsoleLink
                href={`/runs/${encodeURIComponent(run.id)}`}
                className="font-mono text-xs text-blue-700 hover:underline focus-visible:outline-2 focus-visible:outline-blue-600"
              >
                {run.id}
              </ConsoleLink>
              {run.parentRunId && <span className="block text-[11px] text-zinc-500">fork of {run.parentRunId}</span>}
              {run.spawnedByRunId && (
                <span className="block text-[11px] text-zinc-500">child of {run.spawnedByRunId}</span>
              )}
            </Td>
            <Td>
              {run.agentSlug}
              <span className="text-zinc-500">@{run.agentVersion}</span>
            </Td>
            <Td>
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
            </Td>
            <Td className="text-right tabular-nums">{run.step ?? <span className="text-zinc-500">—</span>}</Td>
            <Td>
              <Timestamp value={run.createdAt} />
            </Td>
            <Td>
              <Timestamp value={run.updatedAt} />
            </Td>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}
