"use client";
import { ConsoleLink } from "@/components/shell/console-links";
import { Badge } from "@/components/ui/badge";
import { Timestamp } from "@/components/ui/timestamp";
import type { InboxItem } from "@/lib/inbox/queue";
import { ExpiryCountdown } from "./expiry-countdown";
import { ImpactBadge } from "./impact-badge";

type InboxRowProps = {
  item: InboxItem;
  now: Date;
  isCursor: boolean;
  isChecked: boolean;
  canDecide: boolean;
  me: string;
  onCheck: (checked: boolean) => void;
  onFocusRow: () => void;
};

/** One pending packet in the queue: what it would do, for which run, its queue, deadline and assignee. */
export function InboxRow({ item, now, isCursor, isChecked, canDecide, me, onCheck, onFocusRow }: InboxRowProps) {
  const titleId = `packet-${item.id}-title`;
  return (
    <li>
      <article
        aria-labelledby={titleId}
        data-cursor={isCursor || undefined}
        onClick={onFocusRow}
        className={`flex gap-3 rounded-lg border bg-white p-3 shadow-xs ${isCursor ? "border-blue-600 ring-2 ring-blue-600" : "border-zinc-200"}`}
      >
        {canDecide && (
          <div className="pt-0.5">
            <input
              type="checkbox"
              checked={isChecked}
              onChange={(e) => onCheck(e.target.checked)}
              aria-label={`Select ${item.tool} packet ${item.id}`}
              className="size-4 focus-visible:outline-2 focus-visible:outline-blue-600"
            />
          </div>
        )}
        <div className="min-w-0 flex-1">
          <div className="flex flex-wrap items-center gap-2">
            <h2 id={titleId} className="font-mono text-sm font-semibold text-zinc-900">
              {item.tool}
            </h2>
            <ImpactBadge level={item.impactLevel} />
            {item.kind === "UNKNOWN_OUTCOME" && <Badge tone="orange">unknown outcome</Badge>}
            {item.kind === "BUDGET" && <Badge tone="amber">budget</Badge>}
            {item.kind === "VERSION" && <Badge tone="violet">agent version</Badge>}
            {item.requiredApprovals > 1 && (
              <Badge tone="violet">
                four eyes: {item.approvers.length}/{item.requiredApprovals}
              </Badge>
            )}
            <ConsoleLink
              href={`/inbox/${encodeURIComponent(item.id)}`}
              aria-label={`Open packet ${item.id}`}
              className="ml-auto rounded border border-zinc-300 px-2 py-0.5 text-xs font-medium text-blue-700 hover:bg-zinc-50 focus-visible:outline-2 focus-visible:outline-blue-600"
            >
              Open packet <span className="font-mono text-zinc-500">{item.id}</span>
            </ConsoleLink>
          </div>
          <p className="mt-1 text-sm text-zinc-900">{item.impact}</p>
          <dl className="mt-2 flex flex-wrap gap-x-5 gap-y-1 text-xs text-zinc-600">
            <div className="flex gap-1">
              <dt>Agent</dt>
              <dd className="text-zinc-900">{item.agent}</dd>
            </div>
            <div className="flex gap-1">
              <dt>Queue</dt>
              <dd className="text-zinc-900">{item.queue}</dd>
            </div>
            <div className="flex gap-1">
              <dt>Assignee</dt>
              <dd className="text-zinc-900">
                {item.assignee ? (item.assignee === me ? "you" : item.assignee) : "unassigned"}
              </dd>
            </div>
            <div className="flex gap-1">
              <dt>Expires</dt>
              <dd>
                <ExpiryCountdown expiresAt={item.expiresAt} onExpire={item.onExpire} now={now} />
              </dd>
            </div>
            <div className="flex gap-1">
              <dt>Waiting since</dt>
              <dd className="text-zinc-900">
                <Timestamp value={item.createdAt} relativeTo={now} />
              </dd>
            </div>
            <div className="flex gap-1">
              <dt>Run</dt>
              <dd>
                <ConsoleLink
                  href={`/runs/${encodeURIComponent(item.runId)}`}
                  className="font-mono text-blue-700 underline"
                >
                  {item.runId}
                </ConsoleLink>
              </dd>
            </div>
          </dl>
        </div>
      </article>
    </li>
  );
}
