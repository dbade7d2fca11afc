import { Badge, type BadgeTone } from "@/components/ui/badge";
import { Card } from "@/components/ui/card";
import { statusLabel } from "@/components/ui/status-badge";
import type { DecisionPacket, PacketStatus } from "@/lib/runtime/types";
import { Meta, PacketMeta } from "./packet-meta";

const PACKET_STATUS_TONE: Record<PacketStatus, BadgeTone> = {
  PENDING: "amber",
  APPROVED: "green",
  EDITED: "green",
  REJECTED: "red",
  REDIRECTED: "violet",
  EXPIRED: "gray",
  STALE: "orange",
};

export function PacketStatusBadge({ status }: { status: PacketStatus }) {
  return (
    <Badge tone={PACKET_STATUS_TONE[status] ?? "gray"} title={status}>
      {statusLabel(status)}
    </Badge>
  );
}

/** The proposed action in plain words, with its status, four-eyes progress, expiry and run. */
export function PacketSummary({ packet, now }: { packet: DecisionPacket; now: Date }) {
  return (
    <Card title="Proposed action" actions={<PacketStatusBadge status={packet.status} />}>
      <p className="text-base text-zinc-900">{packet.content.impact}</p>
      {packet.kind === "UNKNOWN_OUTCOME" && (
        <p className="mt-1 text-sm text-orange-800">The outcome of this action is unknown: it may or may not have happened.</p>
      )}
      <dl className="mt-3 grid grid-cols-2 gap-3 sm:grid-cols-4">
        <Meta label="Status">
          <span data-testid="packet-status">{statusLabel(packet.status)}</span>
        </Meta>
        <PacketMeta packet={packet} now={now} />
      </dl>
    </Card>
  );
}
