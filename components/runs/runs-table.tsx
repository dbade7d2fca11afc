import Link from "next/link";
import { StatusBadge } from "@/components/ui/status-badge";
import { Table, Td, Th } from "@/components/ui/table";
import { Timestamp } from "@/components/ui/timestamp";
import type { RunRecord } from "@/lib/runtime/types";

export function RunsTable({ runs }: { runs: RunRecord[] }) {
  return (
    <Table>
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
              <Link href={`/runs/${encodeURIComponent(run.id)}`} className="font-mono text-xs text-blue-700 hover:underline">
                {run.id}
              </Link>
            </Td>
            <Td>
              {run.agentSlug}
              <span className="text-zinc-400">@{run.agentVersion}</span>
            </Td>
            <Td>
              <StatusBadge status={run.status} />
            </Td>
            <Td className="text-right tabular-nums">{run.state.step}</Td>
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
