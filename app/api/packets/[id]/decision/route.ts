import { z } from "zod";
import { defineRoute } from "@/lib/api/route";
import { presentPacket } from "@/lib/api/present";
import { idParams } from "@/lib/api/schemas";

export const dynamic = "force-dynamic";

/**
 * An approval: {decision: approve|edit|reject|redirect, args?, reason?, instruction?}.
 * An unknown outcome: {decision: happened, receipt?, note?} | {decision: retry} | {decision: skip, reason?} | {decision: redirect, instruction}.
 * → 200, or 409 when already decided.
 */
export const POST = defineRoute(
  { scope: "packets:decide", params: idParams, body: z.unknown() },
  async ({ params, body, principal, runtime }) => ({
    packet: presentPacket(
      await runtime.decidePacket({
        packetId: params.id,
        reviewer: principal.principal,
        via: `token:${principal.name}`,
        input: body,
      }),
    ),
  }),
);
