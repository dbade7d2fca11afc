import { EmptyState } from "@/components/ui/empty-state";
import { JsonView } from "@/components/ui/json-view";
import { Timestamp } from "@/components/ui/timestamp";
import type { TraceEventSummary } from "@/lib/evals/types";
import { eventCategory, formatOffset } from "./format";

// The trial's agent run lived in a throwaway database, so its trace is rendered from the copy kept
// with the result: a vertical timeline, each event at its offset from the run's first event.

const CATEGORY_DOT: Record<string, string> = {
  run: "bg-zinc-500",
  model: "bg-violet-600",
  tool: "bg-blue-700",
  effect: "bg-sky-600",
  gate: "bg-amber-500",
  permission: "bg-emerald-600",
  signal: "bg-fuchsia-600",
  timer: "bg-cyan-600",
  policy: "bg-red-600",
};

export function TraceEvents({ events }: { events: TraceEventSummary[] }) {
  if (events.length === 0)
    return (
      <EmptyState title="No trace events were kept for this trial">
        The run may not have started (see the trial&apos;s error).
      </EmptyState>
    );
  const start = events[0].at;
  return (
    <ol aria-label="Trace events" className="relative ml-2 border-l border-zinc-200">
      {events.map((event) => {
        const isBad = /error|refused|unknown_outcome|failed|mismatch|stale|expired|rejected/.test(event.type);
        return (
          <li key={event.seq} id={`event-${event.seq}`} className="relative pb-3 pl-5">
            <span
              aria-hidden
              className={`absolute top-1.5 -left-[5px] size-2.5 rounded-full ring-2 ring-white ${CATEGORY_DOT[eventCategory(event.type)] ?? "bg-zinc-400"}`}
            />
            <div className="flex flex-wrap items-baseline gap-x-3 text-xs">
              <span className="font-mono text-zinc-500 tabular-nums">#{event.seq}</span>
              <span className={`font-mono text-sm ${isBad ? "font-semibold text-red-800" : "text-zinc-900"}`}>
                {event.type}
              </span>
              <span className="text-zinc-600">step {event.step}</span>
              <span className="tabular-nums text-zinc-600" title="since the run's first event">
                {formatOffset(event.at, start)}
              </span>
              <Timestamp value={event.at} className="text-zinc-500" />
            </div>
            {Object.keys(event.data ?? {}).length > 0 && (
              <div className="mt-0.5 max-w-full">
                <JsonView value={event.data} previewLength={140} />
              </div>
            )}
          </li>
        );
      })}
    </ol>
  );
}
