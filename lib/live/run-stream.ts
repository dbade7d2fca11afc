// A run's live stream (GET /api/console/runs/:id/stream): each trace event as it commits (`trace`, with its
// seq as the SSE id, so a reconnect's Last-Event-ID resumes after it without a gap), the run's head when it
// moves (`run`: status, error, last seq), and the tokens of a model step while it runs (`token`, no id: not
// stored, not replayed). The trace is read from the database (the run page's read model); what makes it read
// again is this process's live feed (a commit here), else a slow timer (a commit by another process).
import type { SseMessage } from "@/lib/api/sse";
import { createNudge } from "@/lib/api/sse";
import type { Db } from "@/lib/db";
import { EVENTS_PAGE_SIZE, findRunEvents, type RunHead } from "@/lib/queries/run-events";
import type { LiveFeed, TokenChunk } from "./live-feed";

/** The read without news: for commits made by another process (a standalone worker). */
export const STREAM_FALLBACK_MS = 2_000;

export type RunStreamOptions = { feed: LiveFeed; after?: number; fallbackMs?: number };

/**
 * Opens the stream: the run is read (and so authorized) first — NOT_FOUND throws before any byte is sent.
 * `after`: the last seq the client holds (Last-Event-ID or ?after=); without it, from the run's newest event.
 */
export async function openRunStream(
  db: Db,
  runId: string,
  opts: RunStreamOptions,
): Promise<(signal: AbortSignal) => AsyncIterable<SseMessage>> {
  // before=1: no events, only the run's head (and NOT_FOUND for a run there is not)
  const opening = await findRunEvents(
    db,
    runId,
    opts.after === undefined ? { before: 1, limit: 1 } : { after: opts.after, limit: EVENTS_PAGE_SIZE },
  );
  const fallbackMs = opts.fallbackMs ?? STREAM_FALLBACK_MS;

  return async function* stream(signal) {
    const nudge = createNudge();
    const tokens: TokenChunk[] = [];
    let hasCommitNews = false;
    const off = opts.feed.onRun(runId, (news) => {
      if (news.kind === "tokens") tokens.push(news.chunk);
      else hasCommitNews = true;
      nudge.nudge();
    });
    try {
      let page = opening;
      let cursor = opts.after ?? page.run.eventSeq;
      let shown: RunHead | null = null;
      let catchUps = 0;
      for (;;) {
        // Tokens heard before the read returned go first: a step's tokens are published before its commit.
        for (const chunk of tokens.splice(0)) yield { event: "token", data: chunk };
        for (const event of page.events) {
          if (event.seq <= cursor) continue;
          cursor = event.seq;
          yield { event: "trace", id: String(event.seq), data: event };
        }
        if (page.events.length > 0) catchUps = 0;
        // The head is read after the events: ahead of them, events committed in between; read them before
        // the head is sent (once: a run whose old events were purged stays ahead for good).
        const isBehind = page.hasMore || (page.run.eventSeq > cursor && catchUps++ < 1);
        if (!isBehind && (!shown || isMoved(shown, page.run))) {
          shown = page.run;
          yield { event: "run", data: page.run };
        }
        let mustRead = isBehind;
        while (!mustRead) {
          const isNudged = await nudge.wait(fallbackMs, signal);
          if (signal.aborted) return;
          for (const chunk of tokens.splice(0)) yield { event: "token", data: chunk };
          // a nudge of tokens alone needs no read; a commit or the timer does
          mustRead = !isNudged || hasCommitNews;
          hasCommitNews = false;
        }
        page = await findRunEvents(db, runId, { after: cursor, limit: EVENTS_PAGE_SIZE });
      }
    } finally {
      off();
    }
  };
}

const isMoved = (a: RunHead, b: RunHead) =>
  a.status !== b.status || a.eventSeq !== b.eventSeq || a.stateSeq !== b.stateSeq || a.error !== b.error;
