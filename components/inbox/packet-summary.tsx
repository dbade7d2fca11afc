import Link from "next/link";
import type { ReactNode } from "react";
import { Badge, type BadgeTone } from "@/components/ui/badge";
import { Card } from "@/components/ui/card";
import { statusLabel } from "@/components/ui/status-badge";
import { Timestamp } from "@/components/ui/timestamp";
import type { DecisionPacket, PacketStatus } from "@/lib/runtime/types";

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

function Meta({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="min-w-0">
      <dt className="text-xs text-zinc-500">{label}</dt>
      <dd className="text-sm text-zinc-800">{children}</dd>
    </div>
  );
}

/** The proposed action in plain words, with its status, four-eyes progress, expiry and run. */
export function PacketSummary({ packet, now }: { packet: DecisionPacket; now: Date }) {
  const isExpired = packet.expiresAt !== null && packet.expiresAt <= now;
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
        <Meta label="Approvals">
          <span className="tabular-nums">
            {packet.approvers.length} / {packet.requiredApprovals}
          </span>
          {packet.approvers.length > 0 && <span className="block truncate text-xs text-zinc-500">{packet.approvers.join(", ")}</span>}
        </Meta>
        <Meta label="Expires">
          {packet.expiresAt ? (
            <span className={isExpired ? "text-red-700" : undefined}>
              <Timestamp value={packet.expiresAt} relativeTo={now} />
            </span>
          ) : (
            <span className="text-zinc-400">never</span>
          )}
        </Meta>
        <Meta label="Run">
          <Link href={`/runs/${encodeURIComponent(packet.runId)}`} className="font-mono text-xs break-all text-blue-700 hover:underline">
            {packet.runId}
          </Link>
          <span className="text-xs text-zinc-400"> · step {packet.step}</span>
        </Meta>
        <Meta label="Requested">
          <Timestamp value={packet.createdAt} relativeTo={now} />
          <span className="block truncate text-xs text-zinc-500">{packet.requestedBy}</span>
        </Meta>
        <Meta label="Queue">{packet.queue}</Meta>
        <Meta label="Assignee">{packet.assignee ?? <span className="text-zinc-400">unassigned</span>}</Meta>
      </dl>
    </Card>
  );
}
