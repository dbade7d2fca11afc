import { z } from "zod";
import { defineConsoleRoute } from "@/lib/api/console-route";
import { idParams } from "@/lib/api/schemas";
import { findRunEvents } from "@/lib/queries/run-events";

export const dynamic = "force-dynamic";

/**
 * A page of the run's trace: after=<seq> the events that follow it (the live timeline polls with its last
 * seq, so only new events cross the wire), before=<seq> the ones just before it (the timeline scrolled up).
 * Without either: from the start.
 */
export const GET = defineConsoleRoute(
  {
    scope: "runs:read",
    params: idParams,
    query: z
      .object({
        after: z.coerce.number().int().min(0).optional(),
        before: z.coerce.number().int().min(1).optional(),
        limit: z.coerce.number().int().min(1).max(500).optional(),
      })
      .refine((q) => q.after === undefined || q.before === undefined, {
        message: "Give after or before, not both.",
        path: ["before"],
      }),
  },
  ({ params, query, db }) => findRunEvents(db, params.id, query),
);
