// Read models for the inbox. Pages call these, never Prisma: the runtime's store is the door.
import { getRuntime } from "@/lib/runtime.server";
import type { DecisionPacket } from "@/lib/runtime/types";

export const INBOX_LIMIT = 100;

/** Pending decision packets, the most urgent first: soonest expiry, then longest waiting. */
export async function findInboxPackets(): Promise<DecisionPacket[]> {
  const { store } = await getRuntime();
  const packets = await store.findPackets({ status: ["PENDING"], limit: INBOX_LIMIT });
  const expiry = (p: DecisionPacket) => p.expiresAt?.getTime() ?? Number.POSITIVE_INFINITY;
  return packets.toSorted((a, b) => expiry(a) - expiry(b) || a.createdAt.getTime() - b.createdAt.getTime());
}

/** One decision packet, or null when there is none with that id. */
export async function findPacket(id: string): Promise<DecisionPacket | null> {
  return getRuntime().store.getPacket(id);
}
