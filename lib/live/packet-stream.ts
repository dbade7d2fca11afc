// The inbox's change feed as a stream (GET /api/console/packets/stream): the same read as the polled feed
// (lib/queries/packet-changes.ts), made when this process's live feed says packets changed, else on a slow
// timer (another process's writes, an expiry). Only news is sent: a `changes` message whose id is the feed's
// cursor, so a reconnect's Last-Event-ID reads from there. The first message (`ready`) carries the cursor
// the stream starts at.
import { createNudge, type SseMessage } from "@/lib/api/sse";
import type { Db } from "@/lib/db";
import { findPacketChanges } from "@/lib/queries/packet-changes";
import type { LiveFeed } from "./live-feed";
import { STREAM_FALLBACK_MS } from "./run-stream";

export type PacketStreamOptions = { feed: LiveFeed; since?: string; fallbackMs?: number };

export function openPacketStream(
  db: Db,
  opts: PacketStreamOptions,
): (signal: AbortSignal) => AsyncIterable<SseMessage> {
  const fallbackMs = opts.fallbackMs ?? STREAM_FALLBACK_MS;
  return async function* stream(signal) {
    const nudge = createNudge();
    const off = opts.feed.onPackets(nudge.nudge);
    try {
      let feed = await findPacketChanges(db, opts.since);
      // A change stays in the feed for its overlap window: news is what the last read did not report.
      let reported = new Set<string>();
      yield { event: "ready", id: feed.cursor, data: { cursor: feed.cursor } };
      for (;;) {
        const seen = new Set(feed.changes.map((c) => `${c.id}:${c.version}`));
        if (feed.more || [...seen].some((key) => !reported.has(key)))
          yield { event: "changes", id: feed.cursor, data: feed };
        reported = seen;
        await nudge.wait(fallbackMs, signal);
        if (signal.aborted) return;
        feed = await findPacketChanges(db, feed.cursor);
      }
    } finally {
      off();
    }
  };
}
