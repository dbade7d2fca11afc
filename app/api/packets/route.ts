import { defineRoute } from "@/lib/api/route";
import { presentPacket } from "@/lib/api/present";
import { packetsQuery } from "@/lib/api/schemas";
import type { PacketStatus } from "@/lib/runtime/types";

export const dynamic = "force-dynamic";

const DECIDED: PacketStatus[] = ["APPROVED", "EDITED", "REJECTED", "REDIRECTED", "EXPIRED", "STALE"];

export const GET = defineRoute({ scope: "runs:read", query: packetsQuery }, async ({ query, runtime }) => {
  const status = query.status === "pending" ? (["PENDING"] as PacketStatus[]) : query.status === "decided" ? DECIDED : undefined;
  const packets = await runtime.store.findPackets({ status, runId: query.runId, queue: query.queue, limit: query.limit });
  return { packets: packets.map(presentPacket) };
});
