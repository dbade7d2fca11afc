// The run page's window on a run's trace, pure so it is unit-tested: a contiguous stretch of events that
// grows a page at a time at either end (older as the timeline scrolls up, newer as it scrolls down or the
// live poll brings them), and the run's head that comes with every page. Pages may arrive in any order
// (the poll, a scroll): each keeps only the events beyond the window's edge it was read from, so the
// window stays contiguous and holds every seq once.
import type { RunEventsPage, RunHead, TimelineEvent, TraceWindow } from "@/lib/queries/run-events";

export type TraceWindowAction =
  /** fromPoll: read by the live poll, whose head (read after the events) may show events written meanwhile. */
  | { type: "newer"; page: RunEventsPage; fromPoll?: boolean }
  | { type: "older"; page: RunEventsPage }
  | { type: "head"; run: RunHead }
  /** Events as the live stream sends them, oldest first: appended when they continue the window's end. */
  | { type: "streamed"; events: TimelineEvent[] };

export const firstSeqOf = (held: TraceWindow) => held.events[0]?.seq;
export const lastSeqOf = (held: TraceWindow) => held.events.at(-1)?.seq ?? 0;

/** The later of two reads of the run's head: a slow response must not take the header back in time. */
const laterHead = (current: RunHead, read: RunHead) => (read.updatedAt >= current.updatedAt ? read : current);

export function reduceTraceWindow(held: TraceWindow, action: TraceWindowAction): TraceWindow {
  switch (action.type) {
    case "head":
      return { ...held, run: laterHead(held.run, action.run) };
    case "newer": {
      // Read after a seq at or before the window's last one: what follows the last one continues the window.
      const fresh = action.page.events.filter((e) => e.seq > lastSeqOf(held));
      const events = fresh.length > 0 ? [...held.events, ...fresh] : held.events;
      const run = laterHead(held.run, action.page.run);
      // A run that wrote its last events and finished between the poll's two reads is not polled again:
      // its head says there is more. (Only the poll's: a finished, compacted run's eventSeq can be ahead of its last event for good.)
      const isBehindHead = action.fromPoll === true && run.eventSeq > (events.at(-1)?.seq ?? 0);
      return { ...held, run, events, hasNewer: action.page.hasMore || isBehindHead };
    }
    case "streamed": {
      // A reader scrolled back (hasNewer) loads newer pages as they scroll; a gap is theirs to load too.
      if (held.hasNewer) return held;
      const fresh = action.events.filter((e) => e.seq > lastSeqOf(held));
      if (fresh.length === 0) return held;
      if (fresh[0].seq !== lastSeqOf(held) + 1) return { ...held, hasNewer: true };
      return { ...held, events: [...held.events, ...fresh] };
    }
    case "older": {
      const first = firstSeqOf(held) ?? Number.POSITIVE_INFINITY;
      const older = action.page.events.filter((e) => e.seq < first);
      return {
        ...held,
        run: laterHead(held.run, action.page.run),
        events: older.length > 0 ? [...older, ...held.events] : held.events,
        hasOlder: action.page.hasMore,
      };
    }
  }
}
