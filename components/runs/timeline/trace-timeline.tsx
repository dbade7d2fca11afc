"use client";
import { useVirtualizer } from "@tanstack/react-virtual";
import { useDeferredValue, useEffect, useMemo, useRef, useState } from "react";
import { Alert } from "@/components/ui/alert";
import { EmptyState } from "@/components/ui/empty-state";
import { useRunLive } from "../live/run-live";
import { TimelineFilters } from "./timeline-filters";
import { TimelineRowView } from "./timeline-row";
import { ALL_KINDS, buildTimelineRows, EVENT_KINDS, filterEvents, kindOf, type EventKind } from "./trace-model";

const ESTIMATE: Record<string, number> = { step: 30, wait: 38, event: 58 };

/** Every event of the run, grouped by step, filterable, virtualized: thousands of events scroll smoothly. */
export function TraceTimeline() {
  const { events, isLive, isLoadingBacklog, error } = useRunLive();
  const [kinds, setKinds] = useState<ReadonlySet<EventKind>>(ALL_KINDS);
  const [text, setText] = useState("");
  const deferredText = useDeferredValue(text);

  const counts = useMemo(() => {
    const out = Object.fromEntries(EVENT_KINDS.map((k) => [k, 0])) as Record<EventKind, number>;
    for (const event of events) out[kindOf(event.type)] += 1;
    return out;
  }, [events]);
  const shown = useMemo(() => filterEvents(events, { kinds, text: deferredText }), [events, kinds, deferredText]);
  const rows = useMemo(() => buildTimelineRows(shown), [shown]);

  const scrollRef = useRef<HTMLDivElement>(null);
  // A live run opens at its newest events and keeps them in view; scrolling up stops following.
  const followsEnd = useRef(isLive);
  // The virtualizer's functions cannot be memoized by the React Compiler; this component does not need it to be.
  // eslint-disable-next-line react-hooks/incompatible-library
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: (i) => ESTIMATE[rows[i].kind],
    getItemKey: (i) => rows[i].key,
    overscan: 10,
    // The box's CSS height (36rem): rows render on the server and before the first measurement.
    initialRect: { width: 1024, height: 576 },
  });

  useEffect(() => {
    if (followsEnd.current && rows.length > 0) virtualizer.scrollToIndex(rows.length - 1, { align: "end" });
  }, [rows.length, virtualizer]);

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
        <h2 id="trace-heading" className="text-sm font-semibold text-zinc-900">Trace</h2>
        <p className="text-xs text-zinc-600" aria-live="polite">
          Showing {shown.length} of {events.length} events{isLoadingBacklog ? " · loading more…" : isLive ? " · following the run" : ""}
        </p>
      </div>
      <TimelineFilters kinds={kinds} counts={counts} text={text} onToggleKind={toggleKind} onText={setText} />
      {error && <Alert tone="error">{error}</Alert>}
      {events.length === 0 ? (
        <EmptyState title="No trace events yet">Events appear as the run takes steps.</EmptyState>
      ) : rows.length === 0 ? (
        <EmptyState title="No events match">Choose more event kinds or change the filter text.</EmptyState>
      ) : (
        <div
          ref={scrollRef}
          role="region"
          aria-label="Trace events"
          tabIndex={0}
          onScroll={(e) => {
            const el = e.currentTarget;
            followsEnd.current = el.scrollHeight - el.scrollTop - el.clientHeight < 48;
          }}
          className="h-[36rem] overflow-auto rounded-lg border border-zinc-200 bg-white shadow-xs focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-blue-600"
        >
          <div role="list" style={{ height: virtualizer.getTotalSize(), position: "relative" }}>
            {virtualizer.getVirtualItems().map((item) => (
              <div
                key={item.key}
                role="listitem"
                data-index={item.index}
                ref={virtualizer.measureElement}
                className="absolute top-0 left-0 w-full"
                style={{ transform: `translateY(${item.start}px)` }}
              >
                <TimelineRowView row={rows[item.index]} />
              </div>
            ))}
          </div>
        </div>
      )}
    </section>
  );
}
