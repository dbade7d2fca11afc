import type { RunCursor, StepOutcome } from "./cursor";
import type { EngineContext } from "./context";
import type { DecisionPacket, PacketDecision } from "./types";

export type TakenDecision = { packet: DecisionPacket; decision: PacketDecision; by: string };

/**
 * A run woken while one of its packets was open: the packet as decided, with its decision added to the run's
 * facts. Missing, the run fails; still open, it parks again (the outcome is returned instead).
 */
export async function takeDecision(
  ctx: EngineContext,
  cursor: RunCursor,
  packetId: string,
  what: string,
): Promise<TakenDecision | { outcome: Promise<StepOutcome> }> {
  const packet = await ctx.store.getPacket(packetId, cursor.run.workspaceId);
  if (!packet) return { outcome: cursor.finish("FAILED", `${what} packet ${packetId} is missing`) };
  if (packet.status === "PENDING") return { outcome: cursor.park(cursor.status) };
  const decision = packet.decision!;
  const by = packet.decidedBy ?? "unknown";
  cursor.addDecisionFact(packet.id, decision, by);
  return { packet, decision, by };
}
