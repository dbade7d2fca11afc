import { defineRoute } from "@/lib/api/route";
import { eventsQuery, idParams } from "@/lib/api/schemas";

export const dynamic = "force-dynamic";

/** Trace events after a sequence number, in order: poll with ?after=<last seq>. */
export const GET = defineRoute(
  { scope: "runs:read", params: idParams, query: eventsQuery },
  async ({ params, query, runtime }) => {
    await runtime.getRun(params.id); // 404 for an unknown run, not an empty list
    const events = await runtime.store.listEvents(params.id, { afterSeq: query.after, limit: query.limit });
    return { events, lastSeq: events.at(-1)?.seq ?? query.after };
  },
);
