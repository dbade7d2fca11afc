// A run's trace, read incrementally by seq for the live timeline (GET /api/console/runs/:id/events),
// and the run's head (status, error, last seq) so the page header follows the run while it moves.
import type { Db } from "@/lib/db";
import { AppError } from "@/lib/runtime/errors";
import { parse } from "@/lib/store/records";
import type { RunStatus } from "@/lib/runtime/types";

export const EVENTS_PAGE_SIZE = 500;

/** A trace event as it crosses the wire: dates as ISO strings. */
export type TimelineEvent = { seq: number; step: number; type: string; at: string; data: Record<string, unknown> };

/** The run as the live view follows it: stateSeq is its latest checkpoint, eventSeq its last trace event. */
export type RunHead = { id: string; status: RunStatus; error: string | null; stateSeq: number; eventSeq: number; updatedAt: string };

export type RunEventsPage = { run: RunHead; events: TimelineEvent[]; hasMore: boolean };

/** Events with seq > after, oldest first, at most `limit`; NOT_FOUND when there is no such run. */
export async function findRunEvents(db: Db, runId: string, opts: { after?: number; limit?: number } = {}): Promise<RunEventsPage> {
  const limit = Math.min(Math.max(opts.limit ?? EVENTS_PAGE_SIZE, 1), EVENTS_PAGE_SIZE);
  // The head is read after the events: if the run moves in between, its eventSeq is ahead and the client asks again.
  const rows = await db.traceEvent.findMany({ where: { runId, seq: { gt: opts.after ?? 0 } }, orderBy: { seq: "asc" }, take: limit + 1 });
  const head = await db.run.findUnique({ where: { id: runId }, select: { id: true, status: true, error: true, stateSeq: true, eventSeq: true, updatedAt: true } });
  if (!head) throw new AppError("NOT_FOUND", { message: `run ${runId} not found`, userMessage: "That run does not exist." });
  return {
    run: { ...head, status: head.status as RunStatus, updatedAt: head.updatedAt.toISOString() },
    events: rows.slice(0, limit).map((r) => ({ seq: r.seq, step: r.step, type: r.type, at: r.at.toISOString(), data: (parse(r.data) ?? {}) as Record<string, unknown> })),
    hasMore: rows.length > limit,
  };
}
