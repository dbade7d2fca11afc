import { ConsoleLink } from "@/components/shell/console-links";
import { Table, Td, Th } from "@/components/ui/table";
import { Timestamp } from "@/components/ui/timestamp";
import type { DatasetSummary } from "@/lib/evals/queries";
import { EvalStatusBadge } from "./eval-badges";

export function DatasetsTable({ datasets }: { datasets: DatasetSummary[] }) {
  return (
    <Table>
      <thead>
        <tr>
          <Th>Dataset</Th>
          <Th className="text-right">Cases</Th>
          <Th>Agents</Th>
          <Th>Version</Th>
          <Th>Updated</Th>
          <Th>Last eval run</Th>
        </tr>
      </thead>
      <tbody>
        {datasets.map((dataset) => (
          <tr key={dataset.id} className="hover:bg-zinc-50">
            <Td>
              <ConsoleLink
                href={`/evals/datasets/${encodeURIComponent(dataset.name)}`}
                className="font-medium text-blue-700 hover:underline"
              >
                {dataset.name}
              </ConsoleLink>
              {dataset.description && <div className="text-xs text-zinc-500">{dataset.description}</div>}
            </Td>
            <Td className="text-right tabular-nums">{dataset.caseCount}</Td>
            <Td className="text-xs">{dataset.agents.join(", ")}</Td>
            <Td className="font-mono text-xs">{dataset.version}</Td>
            <Td className="text-xs">
              <Timestamp value={dataset.updatedAt} />
            </Td>
            <Td>
              {dataset.lastRun ? (
                <span className="flex flex-wrap items-center gap-2">
                  <ConsoleLink
                    href={`/evals/runs/${encodeURIComponent(dataset.lastRun.id)}`}
                    className="text-xs text-blue-700 hover:underline"
                  >
                    <Timestamp value={dataset.lastRun.startedAt} />
                  </ConsoleLink>
                  <EvalStatusBadge status={dataset.lastRun.status} />
                </span>
              ) : (
                <span className="text-xs text-zinc-500">never run</span>
              )}
            </Td>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}
