import { RunIdLink } from "@/components/runs/run-id-link";
import { LabelledValue } from "@/components/ui/labelled-value";
import { Timestamp } from "@/components/ui/timestamp";
import type { DecisionPacket } from "@/lib/runtime/types";
import { ExpiryCountdown } from "./expiry-countdown";

// The facts about a packet a reviewer scans first, shared by the inbox card and the packet page.

/** Run, queue, assignee, expiry, four-eyes progress and requester, as <dt>/<dd> pairs for a <dl>. */
export function PacketMeta({ packet, now }: { packet: DecisionPacket; now: Date }) {
  return (
    <>
      <LabelledValue label="Run">
        <RunIdLink runId={packet.runId} className="font-mono text-xs break-all text-blue-700 underline" />
        <span className="text-xs text-zinc-500"> · step {packet.step}</span>
      </LabelledValue>
      <LabelledValue label="Queue">{packet.queue}</LabelledValue>
      <LabelledValue label="Assignee">
        {packet.assignee ?? <span className="text-zinc-500">unassigned</span>}
      </LabelledValue>
      <LabelledValue label="Expires">
        <ExpiryCountdown expiresAt={packet.expiresAt?.toISOString() ?? null} onExpire={packet.onExpire} now={now} />
      </LabelledValue>
      <LabelledValue label="Approvals">
        <span className="tabular-nums">
          {packet.approvers.length} / {packet.requiredApprovals}
        </span>
        {packet.approvers.length > 0 && (
          <span className="block truncate text-xs text-zinc-500">{packet.approvers.join(", ")}</span>
        )}
      </LabelledValue>
      <LabelledValue label="Requested">
        <Timestamp value={packet.createdAt} relativeTo={now} />
        <span className="block truncate text-xs text-zinc-500">{packet.requestedBy}</span>
      </LabelledValue>
    </>
  );
}
