import { z } from "zod";
import { defineConsoleRoute } from "@/lib/api/console-route";
import { idParams } from "@/lib/api/schemas";
import { lastEventIdOf, sseResponse } from "@/lib/api/sse";
import { liveFeedOf } from "@/lib/live/live-feed";
import { openRunStream } from "@/lib/live/run-stream";

export const dynamic = "force-dynamic";

const seq = z.coerce.number().int().min(0).max(2_147_483_647); // a seq is a 32-bit integer in the database

/**
 * The run page's live stream (text/event-stream, lib/live/run-stream.ts): trace events as they commit, the
 * run's head, a model step's tokens. after=<seq> (or the Last-Event-ID a reconnect sends): resume after it.
 * A run the person cannot read is a JSON 404 before the stream starts.
 */
export const GET = defineConsoleRoute(
  {
    scope: "runs:read",
    params: idParams,
    query: z.object({ after: seq.optional() }),
  },
  async ({ params, query, request, db }) => {
    const resumeFrom = seq.safeParse(lastEventIdOf(request));
    const open = await openRunStream(db, params.id, {
      feed: liveFeedOf(db),
      after: resumeFrom.success ? resumeFrom.data : query.after,
    });
    return sseResponse(open, { signal: request.signal });
  },
);
