import { EmptyState } from "@/components/ui/empty-state";
import { JsonView } from "@/components/ui/json-view";
import { Table, Td, Th } from "@/components/ui/table";
import { Timestamp } from "@/components/ui/timestamp";
import type { LedgerRow } from "@/lib/evals/types";

/** What the sandbox systems recorded during the trial: the effects that really happened, once each (or not). */
export function LedgerTable({ rows }: { rows: LedgerRow[] }) {
  if (rows.length === 0)
    return <EmptyState title="No effects">The sandbox systems recorded nothing for this trial.</EmptyState>;
  return (
    <Table>
      <caption className="sr-only">Ledger of the sandbox systems during the trial</caption>
      <thead>
        <tr>
          <Th>Effect</Th>
          <Th>Operation</Th>
          <Th>Time</Th>
          <Th>Data</Th>
        </tr>
      </thead>
      <tbody>
        {rows.map((row, i) => (
          <tr key={i}>
            <Td className="font-mono text-xs whitespace-nowrap">
              {row.system}.{row.action}
            </Td>
            <Td className="font-mono text-xs text-zinc-600">{row.operationId ?? "—"}</Td>
            <Td className="text-xs">
              <Timestamp value={row.at} />
            </Td>
            <Td className="w-full max-w-0">
              <JsonView value={row.data} previewLength={100} />
            </Td>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}
