import { defineRoute } from "@/lib/api/route";
import { packetStatusesOf, presentPacket } from "@/lib/api/present";
import { packetsQuery } from "@/lib/api/schemas";

export const dynamic = "force-dynamic";

export const GET = defineRoute({ scope: "runs:read", query: packetsQuery }, async ({ query, runtime }) => {
  const packets = await runtime.store.findPackets({
    status: packetStatusesOf(query.status),
    runId: query.runId,
    queue: query.queue,
    limit: query.limit,
  });
  return { packets: packets.map(presentPacket) };
});
