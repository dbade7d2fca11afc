import { z } from "zod";
import { defineRoute } from "@/lib/api/route";
import { idParams } from "@/lib/api/schemas";
import { waitForGate } from "@/lib/commands/request-gate";

export const dynamic = "force-dynamic";

const query = z.object({ wait: z.coerce.number().min(0).max(60).default(0) });

/** The gate; `?wait=N` long-polls up to N seconds (0..60) and answers as soon as it is decided. */
export const GET = defineRoute(
  { scope: ["gates:request", "runs:read"], params: idParams, query },
  async ({ params, query, runtime, request }) =>
    waitForGate({ runtime }, params.id, { waitSeconds: query.wait, signal: request.signal }),
);
