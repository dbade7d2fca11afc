import { z } from "zod";
import { defineConsoleRoute } from "@/lib/api/console-route";
import { idParams } from "@/lib/api/schemas";
import { findCheckpointSummaries } from "@/lib/queries/run-checkpoints";

export const dynamic = "force-dynamic";

/** The run page's checkpoint list, a page further down: before=<the oldest seq it holds>. Metadata only, no state. */
export const GET = defineConsoleRoute(
  {
    scope: "runs:read",
    params: idParams,
    query: z.object({
      before: z.coerce.number().int().min(1).optional(),
      limit: z.coerce.number().int().min(1).max(500).optional(),
    }),
  },
  ({ params, query, db }) => findCheckpointSummaries(db, params.id, query),
);
