import { DataTable, type Column } from "@/components/ui/data-table";
import { Timestamp } from "@/components/ui/timestamp";
import type { AuditExportEntry } from "@/lib/audit/entries";

const compact = (value: unknown) => (value === null || value === undefined ? "" : JSON.stringify(value));

const COLUMNS: Column<AuditExportEntry>[] = [
  {
    header: "Time (UTC)",
    className: "whitespace-nowrap text-xs text-zinc-600",
    cell: (e) => <Timestamp value={e.at} />,
  },
  {
    header: "Actor",
    className: "text-xs",
    cell: (e) => (
      <>
        <span className="font-medium">{e.actor}</span>
        {e.via && <span className="block text-zinc-500">via {e.via}</span>}
      </>
    ),
  },
  {
    header: "Action",
    cell: (e) => (
      <code className={`font-mono text-xs ${e.action.endsWith(".denied") ? "text-red-700" : ""}`}>{e.action}</code>
    ),
  },
  { header: "Object", className: "break-all text-xs", cell: (e) => e.target },
  {
    header: "Change",
    className: "max-w-xs text-xs",
    cell: (e) =>
      e.before !== null || e.after !== null ? (
        <span className="break-all font-mono">
          <span className="text-zinc-500">{compact(e.before) || "—"}</span> → {compact(e.after) || "—"}
        </span>
      ) : (
        <span className="text-zinc-500">not recorded</span>
      ),
  },
  {
    header: "Details",
    className: "max-w-sm text-xs",
    cell: (e) => (
      <details>
        <summary className="cursor-pointer text-blue-700">Data</summary>
        <pre className="mt-1 whitespace-pre-wrap break-all font-mono text-[11px] text-zinc-700">
          {JSON.stringify(e.data, null, 2)}
        </pre>
      </details>
    ),
  },
];

/** The audit entries of a page: who, through what, did what to which object, and what changed. */
export function AuditTable({ entries }: { entries: AuditExportEntry[] }) {
  return <DataTable columns={COLUMNS} rows={entries} rowKey={(entry) => entry.id} />;
}
