import { z } from "zod";
import { isAppError, AppError } from "@/lib/runtime/errors";
import type { DecisionPacket, PacketStatus } from "@/lib/runtime/types";

// Bulk decisions: several packets of one tool approved or rejected at once. Each one is still its
// own decision — the runtime's decidePacket per packet, each approval bound to that packet's digest —
// and only if the packet still proposes the exact action the reviewer confirmed (its digest).
// One packet losing a race does not stop the others: every packet gets its own result.

/** The packets a reviewer selected, each with the digest of the action they saw. */
const selectedPackets = z
  .array(z.object({ packetId: z.string().min(1), digest: z.string().min(1) }))
  .min(1, "Select packets.")
  .max(50, "At most 50 at once.");

export const decideTogetherSchema = z.discriminatedUnion("decision", [
  z.object({ decision: z.literal("approve"), packets: selectedPackets }),
  z.object({
    decision: z.literal("reject"),
    packets: selectedPackets,
    reason: z.string().trim().min(1, "Say why you reject them: each agent receives the reason."),
  }),
]);
export type DecideTogetherInput = z.input<typeof decideTogetherSchema>;

export type BulkResult =
  | { packetId: string; ok: true; status: PacketStatus; runId: string }
  | { packetId: string; ok: false; code: string; message: string };

export type DecideTogetherDeps = {
  getPacket: (id: string) => Promise<DecisionPacket | null>;
  decidePacket: (opts: { packetId: string; reviewer: string; input: unknown }) => Promise<DecisionPacket>;
};

export async function decidePacketsTogether(
  deps: DecideTogetherDeps,
  opts: { input: z.output<typeof decideTogetherSchema>; reviewer: string },
): Promise<BulkResult[]> {
  const { input, reviewer } = opts;
  const packets = await Promise.all(input.packets.map((p) => deps.getPacket(p.packetId)));
  const tools = new Set(packets.filter((p): p is DecisionPacket => p !== null).map((p) => p.tool));
  if (tools.size > 1) {
    throw new AppError("INVALID_INPUT", {
      message: "bulk decision over several tools",
      userMessage: "Decide packets together only when they use the same tool.",
    });
  }
  const decision =
    input.decision === "approve"
      ? { decision: "approve" as const }
      : { decision: "reject" as const, reason: input.reason };
  const results: BulkResult[] = [];
  for (const [i, item] of input.packets.entries()) {
    const packet = packets[i];
    if (!packet) {
      results.push({
        packetId: item.packetId,
        ok: false,
        code: "NOT_FOUND",
        message: "That decision packet does not exist.",
      });
      continue;
    }
    if (packet.digest !== item.digest) {
      results.push({
        packetId: item.packetId,
        ok: false,
        code: "APPROVAL_MISMATCH",
        message: "This packet proposes a different action than the one you confirmed; open it to decide.",
      });
      continue;
    }
    try {
      const decided = await deps.decidePacket({ packetId: packet.id, reviewer, input: decision });
      results.push({ packetId: packet.id, ok: true, status: decided.status, runId: decided.runId });
    } catch (error) {
      if (!isAppError(error)) throw error;
      results.push({ packetId: packet.id, ok: false, code: error.code, message: error.userMessage });
    }
  }
  return results;
}
