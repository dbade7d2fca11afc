import { z } from "zod";
import { defineRoute } from "@/lib/api/route";
import { reportGateOutcome } from "@/lib/commands/request-gate";

export const dynamic = "force-dynamic";

const params = z.object({ id: z.string().min(1).max(200) });

/** What the caller did with the approved action: happened (with its receipt), failed, or not done. */
export const POST = defineRoute(
  { scope: "gates:request", params, body: z.unknown() },
  async ({ params, body, principal, runtime, db }) =>
    reportGateOutcome({ db, runtime }, { gateId: params.id, reportedBy: principal.principal, input: body }),
);
