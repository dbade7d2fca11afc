"use client";
import { useVirtualizer } from "@tanstack/react-virtual";
import { useEffect, useMemo, useRef } from "react";
import { TimelineRowView } from "./timeline-row";
import { groupRowsByEvent, type TimelineRow } from "./trace-model";

// The timeline's scrolling list. Virtualized: only the rows in view (and a few around them) are in the
// page, however long the trace. It asks for the page of events before or after the ones it holds when
// the view comes within LOAD_MARGIN items of either end; rows loaded above keep what is on screen in
// place, and a live run's new rows are followed while the view is at the end.

const ESTIMATE: Record<TimelineRow["kind"], number> = { step: 30, wait: 38, event: 58 };
/** The box's CSS height (36rem): rows render on the server and before the first measurement. */
const VIEWPORT = { width: 1024, height: 576 };
const LOAD_MARGIN = 40;

type TraceListProps = {
  rows: TimelineRow[];
  /** Events held, shown or not: a page whose events the filters hide still counts as loaded. */
  eventCount: number;
  /** Open at the newest rows (a live run), rather than at the oldest. */
  opensAtEnd: boolean;
  /** Keep the newest rows in view as they arrive, while the view is at the end (a live run whose window reaches its last event). */
  followsNew: boolean;
  /** Each end's paging: whether there are events beyond it, and how to load the next page of them. */
  hasOlder: boolean;
  loadOlder: () => void;
  hasNewer: boolean;
  loadNewer: () => void;
};

export function TraceList({
  rows,
  eventCount,
  opensAtEnd,
  followsNew,
  hasOlder,
  loadOlder,
  hasNewer,
  loadNewer,
}: TraceListProps) {
  const items = useMemo(() => groupRowsByEvent(rows), [rows]);
  const scrollRef = useRef<HTMLDivElement>(null);
  const estimateOf = (index: number) => items[index].rows.reduce((sum, row) => sum + ESTIMATE[row.kind], 0);
  // The virtualizer's functions cannot be memoized by the React Compiler; this component does not need it to be.
  // eslint-disable-next-line react-hooks/incompatible-library
  const virtualizer = useVirtualizer({
    count: items.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: estimateOf,
    getItemKey: (i) => items[i].key,
    overscan: 10,
    initialRect: VIEWPORT,
    // Where a live run opens, from the first render on (the server's too): its newest rows.
    initialOffset: () =>
      opensAtEnd ? Math.max(0, items.reduce((sum, _, i) => sum + estimateOf(i), 0) - VIEWPORT.height) : 0,
    // When rows arrive at either end, the row at the top of the view keeps its place on screen ...
    anchorTo: "end",
    // ... unless the view is at the end of a live trace: then it moves on to the newest row.
    followOnAppend: followsNew,
  });

  // The estimated offset is close; once rows are measured, a live run is put exactly at its end (once).
  const hasOpened = useRef(false);
  useEffect(() => {
    if (hasOpened.current) return;
    hasOpened.current = true;
    if (opensAtEnd && items.length > 0) virtualizer.scrollToEnd();
  }, [opensAtEnd, items.length, virtualizer]);

  const visible = virtualizer.getVirtualItems();
  const firstIndex = visible[0]?.index;
  const lastIndex = visible.at(-1)?.index;
  useEffect(() => {
    // No item in view (every held event filtered out): keep reading in both directions until some show.
    if (hasOlder && (firstIndex === undefined || firstIndex < LOAD_MARGIN)) loadOlder();
    if (hasNewer && (lastIndex === undefined || lastIndex >= items.length - LOAD_MARGIN)) loadNewer();
  }, [firstIndex, lastIndex, items.length, eventCount, hasOlder, hasNewer, loadOlder, loadNewer]);

  return (
    <div
      ref={scrollRef}
      role="region"
      aria-label="Trace events"
      tabIndex={0}
      className="h-[36rem] overflow-auto rounded-lg border border-zinc-200 bg-white shadow-xs focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-blue-600"
    >
      <div role="list" style={{ height: virtualizer.getTotalSize(), position: "relative" }}>
        {visible.map((item) => (
          <div
            key={item.key}
            role="listitem"
            data-index={item.index}
            ref={virtualizer.measureElement}
            className="absolute top-0 left-0 w-full"
            style={{ transform: `translateY(${item.start}px)` }}
          >
            {items[item.index].rows.map((row) => (
              <TimelineRowView key={row.key} row={row} />
            ))}
          </div>
        ))}
      </div>
    </div>
  );
}
