import { ConsoleLink } from "@/components/shell/console-links";
import { Td, Th } from "@/components/ui/table";
import { Timestamp } from "@/components/ui/timestamp";
import type { HistoryEntry } from "@/lib/queries/decision-history";
import { formatAge } from "@/lib/runtime/expiry";
import { PacketStatusBadge } from "./packet-summary";
import { RunStatusLink } from "./run-status-link";

function decisionDetail(entry: HistoryEntry): string | null {
  const decision = entry.packet.decision;
  if (!decision) return null;
  if (decision.reason) return `reason: ${decision.reason}`;
  if (decision.instruction) return `instruction: ${decision.instruction}`;
  if (decision.decision === "edit") return `edited: ${JSON.stringify(decision.args)}`;
  if (decision.receipt || decision.note)
    return [decision.receipt && `receipt: ${decision.receipt}`, decision.note].filter(Boolean).join(" · ");
  return null;
}

/** Who else approved it before the deciding call (four eyes). */
const earlierApproversOf = ({ packet }: HistoryEntry) => packet.approvers.filter((email) => email !== packet.decidedBy);

// The table keeps a readable minimum width and, on a narrower page, scrolls sideways inside its own
// bordered box: the box scrolls, the page does not. Long tool names, emails and event types wrap
// anywhere. The box is focusable and named, so a keyboard can scroll it too.
export function HistoryTable({ entries }: { entries: HistoryEntry[] }) {
  return (
    <div
      role="region"
      aria-labelledby="history-table-caption"
      tabIndex={0}
      className="max-w-full overflow-x-auto rounded-lg border border-zinc-200 bg-white shadow-xs focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-blue-600"
    >
      <table className="w-full min-w-[56rem] border-collapse text-left text-sm">
        <caption id="history-table-caption" className="sr-only">
          Decided packets, the latest decision first
        </caption>
        <thead>
          <tr>
            <Th>Decided (UTC)</Th>
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
            const earlierApprovers = earlierApproversOf(entry);
            return (
              <tr key={packet.id}>
                <Td>
                  <Timestamp value={packet.decidedAt} />
                </Td>
                <Td className="[overflow-wrap:anywhere]">
                  <ConsoleLink
                    href={`/inbox/${encodeURIComponent(packet.id)}`}
                    className="font-mono text-xs text-blue-700 underline"
                  >
                    {packet.tool}
                  </ConsoleLink>
                  <span className="block text-xs text-zinc-700">{packet.content.impact}</span>
                </Td>
                <Td>
                  <PacketStatusBadge status={packet.status} />
                  {detail && (
                    <span className="mt-0.5 block max-w-56 truncate text-xs text-zinc-600" title={detail}>
                      {detail}
                    </span>
                  )}
                </Td>
                <Td className="text-xs [overflow-wrap:anywhere]">
                  {packet.decidedBy ?? "—"}
                  {earlierApprovers.length > 0 && (
                    <span className="mt-0.5 block text-zinc-600">also approved: {earlierApprovers.join(", ")}</span>
                  )}
                </Td>
                <Td className="text-xs tabular-nums whitespace-nowrap">
                  {entry.waitedMs === null ? "—" : formatAge(entry.waitedMs)}
                </Td>
                <Td>
                  <RunStatusLink runId={packet.runId} status={entry.run.status} />
                  <span className="mt-0.5 block text-xs text-zinc-600 [overflow-wrap:anywhere]">{entry.run.agent}</span>
                </Td>
                <Td>
                  {entry.next.length === 0 ? (
                    <span className="text-xs text-zinc-500">nothing yet</span>
                  ) : (
                    <ol className="space-y-0.5 font-mono text-xs text-zinc-700 [overflow-wrap:anywhere]">
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
      </table>
    </div>
  );
}
