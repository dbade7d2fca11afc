import { Table, Td, Th } from "@/components/ui/table";
import { Timestamp } from "@/components/ui/timestamp";
import type { AuditExportEntry } from "@/lib/audit/entries";

const compact = (value: unknown) => (value === null || value === undefined ? "" : JSON.stringify(value));

/** The audit entries of a page: who, through what, did what to which object, and what changed. */
export function AuditTable({ entries }: { entries: AuditExportEntry[] }) {
  return (
    <Table>
      <thead>
        <tr>
          <Th>Time (UTC)</Th>
          <Th>Actor</Th>
          <Th>Action</Th>
          <Th>Object</Th>
          <Th>Change</Th>
          <Th>Details</Th>
        </tr>
      </thead>
      <tbody>
        {entries.map((entry) => (
          <tr key={entry.id}>
            <Td className="whitespace-nowrap text-xs text-zinc-600">
              <Timestamp value={entry.at} />
            </Td>
            <Td className="text-xs">
              <span className="font-medium">{entry.actor}</span>
              {entry.via && <span className="block text-zinc-500">via {entry.via}</span>}
            </Td>
            <Td>
              <code className={`font-mono text-xs ${entry.action.endsWith(".denied") ? "text-red-700" : ""}`}>
                {entry.action}
              </code>
            </Td>
            <Td className="break-all text-xs">{entry.target}</Td>
            <Td className="max-w-xs text-xs">
              {entry.before !== null || entry.after !== null ? (
                <span className="break-all font-mono">
                  <span className="text-zinc-500">{compact(entry.before) || "—"}</span> → {compact(entry.after) || "—"}
                </span>
              ) : (
                <span className="text-zinc-500">not recorded</span>
              )}
            </Td>
            <Td className="max-w-sm text-xs">
              <details>
                <summary className="cursor-pointer text-blue-700">Data</summary>
                <pre className="mt-1 whitespace-pre-wrap break-all font-mono text-[11px] text-zinc-700">
                  {JSON.stringify(entry.data, null, 2)}
                </pre>
              </details>
            </Td>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}
