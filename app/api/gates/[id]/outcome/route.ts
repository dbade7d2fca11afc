import { z } from "zod";
import { defineRoute } from "@/lib/api/route";
import { idParams } from "@/lib/api/schemas";
import { reportGateOutcome } from "@/lib/commands/request-gate";

export const dynamic = "force-dynamic";

/** What the caller did with the approved action: happened (with its receipt), failed, or not done. */
export const POST = defineRoute(
  { scope: "gates:request", params: idParams, body: z.unknown() },
  async ({ params, body, principal, runtime, db }) =>
    reportGateOutcome({ db, runtime }, { gateId: params.id, reportedBy: principal.principal, input: body }),
);
