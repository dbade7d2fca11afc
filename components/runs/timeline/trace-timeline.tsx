"use client";
import { useDeferredValue, useMemo, useState } from "react";
import { Alert } from "@/components/ui/alert";
import { EmptyState } from "@/components/ui/empty-state";
import { useRunLive } from "../live/run-live";
import { TimelineFilters } from "./timeline-filters";
import { TraceList } from "./trace-list";
import { ALL_KINDS, buildTimelineRows, countByKind, filterEvents, type EventKind } from "./trace-model";

const formatCount = (n: number) => n.toLocaleString("en-US");

/**
 * The run's trace, grouped by step, filterable. The page holds a window of it (useRunLive) that grows as
 * the list scrolls; the filters apply to the events held, the counts beside them are the whole trace's.
 */
export function TraceTimeline() {
  const { events, summary, hasOlder, hasNewer, isLive, isLoadingOlder, isLoadingNewer, loadOlder, loadNewer, error } =
    useRunLive();
  const [kinds, setKinds] = useState<ReadonlySet<EventKind>>(ALL_KINDS);
  const [text, setText] = useState("");
  const deferredText = useDeferredValue(text);

  const counts = useMemo(() => countByKind(summary.countsByType), [summary]);
  const shown = useMemo(() => filterEvents(events, { kinds, text: deferredText }), [events, kinds, deferredText]);
  const rows = useMemo(() => buildTimelineRows(shown), [shown]);
  const hasMore = hasOlder || hasNewer;
  // The summary is read when the run's last event moves, the window at each poll: either may be ahead a moment.
  const total = Math.max(summary.total, events.length);

  function toggleKind(kind: EventKind) {
    setKinds((current) => {
      const next = new Set(current);
      if (next.has(kind)) next.delete(kind);
      else next.add(kind);
      return next;
    });
  }

  return (
    <section aria-labelledby="trace-heading">
      <div className="mb-2 flex flex-wrap items-baseline justify-between gap-2">
        <h2 id="trace-heading" className="text-sm font-semibold text-zinc-900">
          Trace
        </h2>
        <p className="text-xs text-zinc-600" aria-live="polite">
          Showing {formatCount(shown.length)} of {formatCount(events.length)} events
          {hasMore && ` (${formatCount(total)} in the run: more load as you scroll)`}
          {isLoadingOlder || isLoadingNewer ? " · loading more…" : isLive && !hasNewer ? " · following the run" : ""}
        </p>
      </div>
      <TimelineFilters kinds={kinds} counts={counts} text={text} onToggleKind={toggleKind} onText={setText} />
      {error && <Alert tone="error">{error}</Alert>}
      {events.length === 0 && !hasMore ? (
        <EmptyState title="No trace events yet">Events appear as the run takes steps.</EmptyState>
      ) : rows.length === 0 && !hasMore ? (
        <EmptyState title="No events match">Choose more event kinds or change the filter text.</EmptyState>
      ) : (
        <TraceList
          rows={rows}
          eventCount={events.length}
          opensAtEnd={isLive}
          followsNew={isLive && !hasNewer}
          hasOlder={hasOlder}
          hasNewer={hasNewer}
          loadOlder={loadOlder}
          loadNewer={loadNewer}
        />
      )}
    </section>
  );
}
