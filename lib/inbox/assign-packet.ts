import { z } from "zod";
import { AppError } from "@/lib/runtime/errors";
import type { DecisionPacket } from "@/lib/runtime/types";

// Claim, assign and unassign a packet. The assignee must be someone who may decide packets; the
// change itself is the runtime's compare-and-set (a packet decided meanwhile → PACKET_ALREADY_DECIDED).

export const assignPacketSchema = z.object({
  packetId: z.string().trim().min(1, "Which packet?"),
  /** an email; null unassigns */
  assignee: z.string().trim().toLowerCase().email("Choose a person.").nullable(),
});
export type AssignPacketInput = z.input<typeof assignPacketSchema>;

export type AssignDeps = {
  isDecider: (email: string) => Promise<boolean>;
  assignPacket: (opts: { packetId: string; by: string; assignee: string | null }) => Promise<DecisionPacket>;
};

export async function assignInboxPacket(
  deps: AssignDeps,
  opts: { packetId: string; assignee: string | null; by: string },
): Promise<DecisionPacket> {
  if (opts.assignee !== null && !(await deps.isDecider(opts.assignee))) {
    throw new AppError("INVALID_INPUT", {
      message: `${opts.assignee} cannot decide packets`,
      userMessage: `${opts.assignee} may not decide packets, so the packet cannot be assigned to them.`,
      fieldErrors: { assignee: ["Choose someone who may decide packets."] },
    });
  }
  return deps.assignPacket({ packetId: opts.packetId, by: opts.by, assignee: opts.assignee });
}
