import { z } from "zod";
import { defineRoute } from "@/lib/api/route";
import { requestGate } from "@/lib/commands/request-gate";

export const dynamic = "force-dynamic";

/** Ask a person whether an action may run (docs/gates-api.md): 201 a new gate, 200 the one under a known idempotency key. */
export const POST = defineRoute(
  { scope: "gates:request", body: z.unknown() },
  async ({ body, principal, runtime, db }) => {
    const gate = await requestGate({ db, runtime }, { requestedBy: principal.principal, input: body });
    return Response.json(gate, { status: gate.created ? 201 : 200 });
  },
);
