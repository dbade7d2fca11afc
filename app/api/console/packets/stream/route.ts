import { z } from "zod";
import { defineConsoleRoute } from "@/lib/api/console-route";
import { lastEventIdOf, sseResponse } from "@/lib/api/sse";
import { liveFeedOf } from "@/lib/live/live-feed";
import { openPacketStream } from "@/lib/live/packet-stream";

export const dynamic = "force-dynamic";

// The inbox's change feed as Server-Sent Events (lib/live/packet-stream.ts); since=<cursor> or a reconnect's
// Last-Event-ID resumes from a cursor. The polled feed (../changes) stays for browsers without it.
export const GET = defineConsoleRoute(
  { scope: "packets:read", query: z.object({ since: z.string().max(20).optional() }) },
  async ({ query, request, db }) => {
    return sseResponse(
      openPacketStream(db, { feed: liveFeedOf(db), since: lastEventIdOf(request)?.slice(0, 20) ?? query.since }),
      { signal: request.signal },
    );
  },
);
