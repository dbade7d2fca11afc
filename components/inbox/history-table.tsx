import Link from "next/link";
import { StatusBadge, statusLabel } from "@/components/ui/status-badge";
import { Table, Td, Th } from "@/components/ui/table";
import { Timestamp } from "@/components/ui/timestamp";
import type { HistoryEntry } from "@/lib/queries/packets";
import { formatAge } from "./packet-evidence";
import { PacketStatusBadge } from "./packet-summary";

function decisionDetail(entry: HistoryEntry): string | null {
  const decision = entry.packet.decision;
  if (!decision) return null;
  if (decision.reason) return `reason: ${decision.reason}`;
  if (decision.instruction) return `instruction: ${decision.instruction}`;
  if (decision.decision === "edit") return `edited: ${JSON.stringify(decision.args)}`;
  return null;
}

/** Decided packets: who decided what and when, how long it waited, and what the run did next. */
export function HistoryTable({ entries }: { entries: HistoryEntry[] }) {
  return (
    <Table>
      <thead>
        <tr>
          <Th>Decided</Th>
          <Th>Action</Th>
          <Th>Decision</Th>
          <Th>By</Th>
          <Th>Waited</Th>
          <Th>Run now</Th>
          <Th>What the run did next</Th>
        </tr>
      </thead>
      <tbody>
        {entries.map((entry) => {
          const { packet } = entry;
          const detail = decisionDetail(entry);
          const by = [...new Set([...packet.approvers, packet.decidedBy ?? ""])].filter(Boolean);
          return (
            <tr key={packet.id}>
              <Td><Timestamp value={packet.decidedAt} /></Td>
              <Td>
                <Link href={`/inbox/${encodeURIComponent(packet.id)}`} className="font-mono text-xs text-blue-700 underline">{packet.tool}</Link>
                <span className="block text-xs text-zinc-700">{packet.content.impact}</span>
              </Td>
              <Td>
                <PacketStatusBadge status={packet.status} />
                {detail && <span className="mt-0.5 block max-w-xs truncate text-xs text-zinc-600" title={detail}>{detail}</span>}
              </Td>
              <Td className="text-xs">{by.length > 0 ? by.join(", ") : "—"}</Td>
              <Td className="text-xs tabular-nums">{entry.waitedMs === null ? "—" : formatAge(entry.waitedMs)}</Td>
              <Td>
                <Link href={`/runs/${encodeURIComponent(packet.runId)}`} aria-label={`Run ${packet.runId}: ${statusLabel(entry.run.status)}`}>
                  <StatusBadge status={entry.run.status} />
                </Link>
                <span className="mt-0.5 block text-xs text-zinc-600">{entry.run.agent}</span>
              </Td>
              <Td>
                {entry.next.length === 0 ? (
                  <span className="text-xs text-zinc-500">nothing yet</span>
                ) : (
                  <ol className="space-y-0.5 font-mono text-xs text-zinc-700">
                    {entry.next.map((event) => (
                      <li key={event.seq}>{event.type}</li>
                    ))}
                  </ol>
                )}
              </Td>
            </tr>
          );
        })}
      </tbody>
    </Table>
  );
}
