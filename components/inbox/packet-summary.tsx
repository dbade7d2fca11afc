import { ConsoleLink } from "@/components/shell/console-links";
import { Badge, type BadgeTone } from "@/components/ui/badge";
import { Card } from "@/components/ui/card";
import { LabelledValue } from "@/components/ui/labelled-value";
import { StatusBadge, statusLabel } from "@/components/ui/status-badge";
import type { ImpactLevel, ToolTraits } from "@/lib/runtime/impact";
import type { DecisionPacket, PacketStatus, RunStatus } from "@/lib/runtime/types";
import type { RunLink } from "@/lib/queries/run-family";
import { ImpactBadge } from "./impact-badge";
import { PacketMeta } from "./packet-meta";
import { RunStatusLink } from "./run-status-link";

const PACKET_STATUS_TONE: Record<PacketStatus, BadgeTone> = {
  PENDING: "amber",
  APPROVED: "green",
  EDITED: "green",
  REJECTED: "red",
  REDIRECTED: "violet",
  EXPIRED: "gray",
  STALE: "orange",
  CONFIRMED: "green",
  RETRIED: "sky",
  SKIPPED: "gray",
};

export function PacketStatusBadge({ status }: { status: PacketStatus }) {
  return (
    <Badge tone={PACKET_STATUS_TONE[status] ?? "gray"} title={status}>
      {statusLabel(status)}
    </Badge>
  );
}

type PacketSummaryProps = {
  packet: DecisionPacket;
  now: Date;
  traits?: ToolTraits;
  impactLevel?: ImpactLevel;
  impactReason?: string;
  run?: { status: RunStatus; agent: string; parent?: RunLink | null } | null;
};

/** The proposed action in plain words, with its status, impact, four-eyes progress, expiry and run. */
export function PacketSummary({ packet, now, traits, impactLevel, impactReason, run }: PacketSummaryProps) {
  return (
    <Card title="Proposed action" actions={<PacketStatusBadge status={packet.status} />}>
      <p className="text-base text-zinc-900">
        <span className="text-zinc-600">{run ? `${run.agent} ` : "The agent "}wants to </span>
        <span data-testid="packet-impact">{packet.content.impact}</span>
      </p>
      <div className="mt-2 flex flex-wrap items-center gap-2 text-xs text-zinc-600">
        {impactLevel && <ImpactBadge level={impactLevel} reason={impactReason} />}
        <span className="font-mono">{packet.tool}</span>
        {traits ? (
          <span>
            · {traits.capability} · {traits.semantics}
          </span>
        ) : (
          <span>· tool not registered</span>
        )}
      </div>
      {packet.kind === "UNKNOWN_OUTCOME" && (
        <p className="mt-1 text-sm text-orange-800">
          The outcome of this action is unknown: it may or may not have happened.
        </p>
      )}
      <dl className="mt-3 grid grid-cols-2 gap-3 sm:grid-cols-4">
        <LabelledValue label="Status">
          <span data-testid="packet-status">{statusLabel(packet.status)}</span>
        </LabelledValue>
        {run && (
          <LabelledValue label="Run status">
            <RunStatusLink runId={packet.runId} status={run.status} />
          </LabelledValue>
        )}
        <PacketMeta packet={packet} now={now} />
      </dl>
      {run?.parent && (
        <p className="mt-3 text-xs text-zinc-600" data-testid="packet-parent-run">
          Asked in a child run, started by {run.parent.agentSlug}
          {run.parent.spawnedAtStep != null ? ` at step ${run.parent.spawnedAtStep}` : ""} in run{" "}
          <ConsoleLink
            href={`/runs/${encodeURIComponent(run.parent.id)}`}
            className="font-mono text-blue-700 hover:underline"
          >
            {run.parent.id}
          </ConsoleLink>{" "}
          <StatusBadge status={run.parent.status} />
        </p>
      )}
    </Card>
  );
}
