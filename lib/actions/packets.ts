"use server";
// Server actions on decision packets. The inbox UI calls these; the HTTP API's
// POST /api/packets/:id/decision calls the same runtime function.
import { z } from "zod";
import { defineAction } from "@/lib/actions/define-action";
import { decidePacketSchema } from "@/lib/runtime/decide-packet";
import { getRuntime } from "@/lib/runtime.server";

const decidePacketActionSchema = z.object({ packetId: z.string().trim().min(1, "Which packet?") }).and(decidePacketSchema);
export type DecidePacketActionInput = z.input<typeof decidePacketActionSchema>;

/** {packetId, decision: approve|edit|reject|redirect, args?, reason?, instruction?} — decided as the signed-in person. */
export const decidePacketAction = defineAction(
  {
    schema: decidePacketActionSchema,
    scope: "packets:decide",
    audit: { action: "packets.decide", target: ({ packetId }) => packetId, data: ({ packetId: _id, ...decision }, packet: { status: string; runId: string }) => ({ ...decision, status: packet.status, runId: packet.runId }) },
  },
  async ({ packetId, ...input }, { user, revalidatePath }) => {
    const packet = await getRuntime().decidePacket({ packetId, reviewer: user.email, input });
    revalidatePath("/inbox");
    revalidatePath(`/runs/${packet.runId}`);
    return { packetId: packet.id, runId: packet.runId, status: packet.status };
  },
);
