import Link from "next/link";
import type { ReactNode } from "react";
import { Badge } from "@/components/ui/badge";
import { Timestamp } from "@/components/ui/timestamp";
import type { DecisionPacket } from "@/lib/runtime/types";

function Meta({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="min-w-0">
      <dt className="text-xs text-zinc-500">{label}</dt>
      <dd className="text-sm text-zinc-800">{children}</dd>
    </div>
  );
}

/** One pending decision packet, as a reviewer first sees it ; its link opens the packet page where it is decided. */
export function PacketCard({ packet, now }: { packet: DecisionPacket; now: Date }) {
  const isExpired = packet.expiresAt !== null && packet.expiresAt <= now;
  return (
    <article className="rounded-lg border border-zinc-200 bg-white p-4 shadow-xs">
      <div className="flex flex-wrap items-center gap-2">
        <span className="font-mono text-sm font-semibold text-zinc-900">{packet.tool}</span>
        {packet.kind === "UNKNOWN_OUTCOME" ? <Badge tone="orange">unknown outcome</Badge> : <Badge tone="amber">approval</Badge>}
        <Link
          href={`/inbox/${encodeURIComponent(packet.id)}`}
          aria-label={`Open packet ${packet.id}`}
          className="ml-auto rounded border border-zinc-300 px-2 py-0.5 text-xs font-medium text-blue-700 hover:bg-zinc-50"
        >
          Open packet <span className="font-mono text-zinc-400">{packet.id}</span>
        </Link>
      </div>
      <p className="mt-2 text-base text-zinc-900">{packet.content.impact}</p>
      <dl className="mt-3 grid grid-cols-2 gap-3 sm:grid-cols-3 lg:grid-cols-6">
        <Meta label="Run">
          <Link href={`/runs/${encodeURIComponent(packet.runId)}`} className="font-mono text-xs text-blue-700 hover:underline break-all">
            {packet.runId}
          </Link>
          <span className="text-xs text-zinc-400"> · step {packet.step}</span>
        </Meta>
        <Meta label="Queue">{packet.queue}</Meta>
        <Meta label="Assignee">{packet.assignee ?? <span className="text-zinc-400">unassigned</span>}</Meta>
        <Meta label="Expires">
          {packet.expiresAt ? (
            <span className={isExpired ? "text-red-700" : undefined}>
              <Timestamp value={packet.expiresAt} relativeTo={now} />
            </span>
          ) : (
            <span className="text-zinc-400">never</span>
          )}
        </Meta>
        <Meta label="Approvals">
          <span className="tabular-nums">
            {packet.approvers.length} / {packet.requiredApprovals}
          </span>
          {packet.approvers.length > 0 && <span className="block truncate text-xs text-zinc-500">{packet.approvers.join(", ")}</span>}
        </Meta>
        <Meta label="Requested">
          <Timestamp value={packet.createdAt} relativeTo={now} />
          <span className="block truncate text-xs text-zinc-500">{packet.requestedBy}</span>
        </Meta>
      </dl>
    </article>
  );
}
