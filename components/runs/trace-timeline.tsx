import { EmptyState } from "@/components/ui/empty-state";
import { JsonView } from "@/components/ui/json-view";
import { Table, Td, Th } from "@/components/ui/table";
import { Timestamp } from "@/components/ui/timestamp";
import type { TraceEvent } from "@/lib/runtime/types";

export function TraceTimeline({ events, hasMore }: { events: TraceEvent[]; hasMore: boolean }) {
  if (events.length === 0) return <EmptyState title="No trace events yet">Events appear as the run takes steps.</EmptyState>;
  return (
    <>
      <Table>
        <thead>
          <tr>
            <Th className="w-14 text-right">Seq</Th>
            <Th className="w-44">Time</Th>
            <Th className="w-56">Type</Th>
            <Th className="w-14 text-right">Step</Th>
            <Th>Data</Th>
          </tr>
        </thead>
        <tbody>
          {events.map((event) => (
            <tr key={event.seq} id={`event-${event.seq}`}>
              <Td className="text-right font-mono text-xs text-zinc-500 tabular-nums">{event.seq}</Td>
              <Td className="text-xs">
                <Timestamp value={event.at} />
              </Td>
              <Td className="font-mono text-xs text-zinc-900">{event.type}</Td>
              <Td className="text-right tabular-nums">{event.step}</Td>
              <Td className="max-w-0 w-full">
                <JsonView value={event.data} previewLength={100} />
              </Td>
            </tr>
          ))}
        </tbody>
      </Table>
      {hasMore && <p className="mt-2 text-xs text-zinc-500">Showing the first {events.length} events.</p>}
    </>
  );
}
