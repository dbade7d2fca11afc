import { z } from "zod";
import { defineConsoleRoute } from "@/lib/api/console-route";
import { findPacket } from "@/lib/queries/packets";
import { AppError } from "@/lib/runtime/errors";

export const dynamic = "force-dynamic";

// The packet page polls this to notice a decision made elsewhere (another reviewer, expiry, staleness).
export const GET = defineConsoleRoute(
  { scope: "packets:read", params: z.object({ id: z.string().min(1) }) },
  async ({ params }) => {
    const packet = await findPacket(params.id);
    if (!packet)
      throw new AppError("NOT_FOUND", {
        message: `packet ${params.id} not found`,
        userMessage: "That decision packet does not exist.",
      });
    return {
      id: packet.id,
      status: packet.status,
      decidedBy: packet.decidedBy,
      decidedAt: packet.decidedAt?.toISOString() ?? null,
      approvers: packet.approvers,
      requiredApprovals: packet.requiredApprovals,
      assignee: packet.assignee,
      queue: packet.queue,
      expiresAt: packet.expiresAt?.toISOString() ?? null,
      staleChanges: packet.content.staleChanges ?? null,
    };
  },
);
