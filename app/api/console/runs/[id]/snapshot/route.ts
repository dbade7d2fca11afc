import { z } from "zod";
import { defineConsoleRoute } from "@/lib/api/console-route";
import { idParams } from "@/lib/api/schemas";
import { getRunSnapshot } from "@/lib/queries/runs";

export const dynamic = "force-dynamic";

/** The live run page asks for this when the run writes a new checkpoint: recovery, the checkpoint list and (state=1) the current state. */
export const GET = defineConsoleRoute(
  {
    scope: "runs:read",
    params: idParams,
    query: z.object({ state: z.enum(["0", "1"]).default("1") }),
  },
  ({ params, query }) => getRunSnapshot(params.id, { withState: query.state === "1" }),
);
