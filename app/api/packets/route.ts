import { defineRoute } from "@/lib/api/route";
import { presentPacket } from "@/lib/api/present";
import { packetsQuery } from "@/lib/api/schemas";
import { DECIDED_PACKET_STATUSES, type PacketStatus } from "@/lib/runtime/types";

export const dynamic = "force-dynamic";

export const GET = defineRoute({ scope: "runs:read", query: packetsQuery }, async ({ query, runtime }) => {
  const status = query.status === "pending" ? (["PENDING"] as PacketStatus[]) : query.status === "decided" ? [...DECIDED_PACKET_STATUSES] : undefined;
  const packets = await runtime.store.findPackets({ status, runId: query.runId, queue: query.queue, limit: query.limit });
  return { packets: packets.map(presentPacket) };
});
