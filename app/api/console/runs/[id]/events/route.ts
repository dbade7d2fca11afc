import { z } from "zod";
import { defineConsoleRoute } from "@/lib/api/console-route";
import { getDb } from "@/lib/db";
import { findRunEvents } from "@/lib/queries/run-events";

export const dynamic = "force-dynamic";

/** The live timeline polls this with after=<last seq it holds>: only new events cross the wire. */
export const GET = defineConsoleRoute(
  {
    scope: "runs:read",
    params: z.object({ id: z.string().min(1).max(200) }),
    query: z.object({ after: z.coerce.number().int().min(0).default(0), limit: z.coerce.number().int().min(1).max(500).optional() }),
  },
  ({ params, query }) => findRunEvents(getDb(), params.id, query),
);
