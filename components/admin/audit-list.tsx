import { Card } from "@/components/ui/card";
import { Timestamp } from "@/components/ui/timestamp";
import type { AuditRecord } from "@/lib/audit/audit-log";

/** The latest admin actions of one kind, from the audit log (refused attempts included). */
export function AuditList({ title, entries }: { title: string; entries: AuditRecord[] }) {
  return (
    <Card title={title} description="From the audit log: who did what, newest first.">
      {entries.length === 0 ? (
        <p className="text-sm text-zinc-500">Nothing yet.</p>
      ) : (
        <ol className="space-y-1.5 text-xs">
          {entries.map((entry) => (
            <li key={entry.id} className="flex flex-wrap gap-x-2">
              <Timestamp value={entry.at} className="text-zinc-500" />
              <span className="font-medium text-zinc-800">{entry.actor}</span>
              <code className={`font-mono ${entry.action.endsWith(".denied") ? "text-red-700" : "text-zinc-700"}`}>
                {entry.action}
              </code>
              {entry.target && <span className="break-all text-zinc-600">{entry.target}</span>}
            </li>
          ))}
        </ol>
      )}
    </Card>
  );
}
