// A run's trace, read a page at a time by seq (GET /api/console/runs/:id/events): the timeline holds a
// window of the trace and widens it as it scrolls — after=<its last seq> for newer events (which is also
// how the live page follows a running run), before=<its first seq> for older ones — and the run's head
// (status, error, last seq) comes with every page so the page header follows the run while it moves.
import type { Db } from "@/lib/db";
import { AppError } from "@/lib/runtime/errors";
import { parse } from "@/lib/store/records";
import type { RunStatus } from "@/lib/runtime/types";

export const EVENTS_PAGE_SIZE = 500;
/** The run page's pages: a first page that opens fast, then one per scroll past either end of the window. */
export const TIMELINE_PAGE_SIZE = 200;

/** A trace event as it crosses the wire: dates as ISO strings. */
export type TimelineEvent = { seq: number; step: number; type: string; at: string; data: Record<string, unknown> };

/** The run as the live view follows it: stateSeq is its latest checkpoint, eventSeq its last trace event. */
export type RunHead = {
  id: string;
  status: RunStatus;
  error: string | null;
  stateSeq: number;
  eventSeq: number;
  updatedAt: string;
};

/** Events oldest first; hasMore: more events lie beyond the page in the direction read (newer for after, older for before). */
export type RunEventsPage = { run: RunHead; events: TimelineEvent[]; hasMore: boolean };

/** after: the events with seq > after; before: the newest events with seq < before. Never both. */
export type RunEventsRange = { after?: number; before?: number; limit?: number };

/** A page of events (oldest first, at most `limit`; the primary key serves either direction); NOT_FOUND when there is no such run. */
export async function findRunEvents(db: Db, runId: string, range: RunEventsRange = {}): Promise<RunEventsPage> {
  const limit = Math.min(Math.max(range.limit ?? EVENTS_PAGE_SIZE, 1), EVENTS_PAGE_SIZE);
  const isBackward = range.before !== undefined;
  const rows = await db.traceEvent.findMany({
    where: { runId, seq: isBackward ? { lt: range.before } : { gt: range.after ?? 0 } },
    orderBy: { seq: isBackward ? "desc" : "asc" },
    take: limit + 1,
  });
  // The head is read after the events: if the run moves in between, its eventSeq is ahead and the client asks again.
  const head = await db.run.findUnique({
    where: { id: runId },
    select: { id: true, status: true, error: true, stateSeq: true, eventSeq: true, updatedAt: true },
  });
  if (!head)
    throw new AppError("NOT_FOUND", { message: `run ${runId} not found`, userMessage: "That run does not exist." });
  const page = rows.slice(0, limit);
  return {
    run: { ...head, status: head.status as RunStatus, updatedAt: head.updatedAt.toISOString() },
    events: (isBackward ? page.reverse() : page).map((r) => ({
      seq: r.seq,
      step: r.step,
      type: r.type,
      at: r.at.toISOString(),
      data: (parse(r.data) ?? {}) as Record<string, unknown>,
    })),
    hasMore: rows.length > limit,
  };
}

/** A contiguous stretch of the trace, as the run page holds it; hasOlder / hasNewer: events exist before / after it. */
export type TraceWindow = { run: RunHead; events: TimelineEvent[]; hasOlder: boolean; hasNewer: boolean };

/**
 * The window the run page opens with, one page: a live run at its newest events (the page follows them;
 * events after its eventSeq arrive by polling), a finished one at its start.
 */
export async function findOpeningTraceWindow(
  db: Db,
  run: { id: string; eventSeq: number; isLive: boolean },
): Promise<TraceWindow> {
  if (run.isLive) {
    const {
      run: head,
      events,
      hasMore,
    } = await findRunEvents(db, run.id, { before: run.eventSeq + 1, limit: TIMELINE_PAGE_SIZE });
    return { run: head, events, hasOlder: hasMore, hasNewer: false };
  }
  const { run: head, events, hasMore } = await findRunEvents(db, run.id, { after: 0, limit: TIMELINE_PAGE_SIZE });
  return { run: head, events, hasOlder: false, hasNewer: hasMore };
}
