import { ConsoleLink } from "@/components/shell/console-links";
import type { ReactNode } from "react";
import { Timestamp } from "@/components/ui/timestamp";
import type { DecisionPacket } from "@/lib/runtime/types";
import { ExpiryCountdown } from "./expiry-countdown";

// The facts about a packet a reviewer scans first, shared by the inbox card and the packet page.

export function Meta({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="min-w-0">
      <dt className="text-xs text-zinc-500">{label}</dt>
      <dd className="text-sm text-zinc-800">{children}</dd>
    </div>
  );
}

/** Run, queue, assignee, expiry, four-eyes progress and requester, as <dt>/<dd> pairs for a <dl>. */
export function PacketMeta({ packet, now }: { packet: DecisionPacket; now: Date }) {
  return (
    <>
      <Meta label="Run">
        <ConsoleLink
          href={`/runs/${encodeURIComponent(packet.runId)}`}
          className="font-mono text-xs break-all text-blue-700 underline"
        >
          {packet.runId}
        </ConsoleLink>
        <span className="text-xs text-zinc-500"> · step {packet.step}</span>
      </Meta>
      <Meta label="Queue">{packet.queue}</Meta>
      <Meta label="Assignee">{packet.assignee ?? <span className="text-zinc-500">unassigned</span>}</Meta>
      <Meta label="Expires">
        <ExpiryCountdown expiresAt={packet.expiresAt?.toISOString() ?? null} onExpire={packet.onExpire} now={now} />
      </Meta>
      <Meta label="Approvals">
        <span className="tabular-nums">
          {packet.approvers.length} / {packet.requiredApprovals}
        </span>
        {packet.approvers.length > 0 && (
          <span className="block truncate text-xs text-zinc-500">{packet.approvers.join(", ")}</span>
        )}
      </Meta>
      <Meta label="Requested">
        <Timestamp value={packet.createdAt} relativeTo={now} />
        <span className="block truncate text-xs text-zinc-500">{packet.requestedBy}</span>
      </Meta>
    </>
  );
}
