import { Card } from "@/components/ui/card";
import { JsonView } from "@/components/ui/json-view";
import { formatUtc } from "@/components/ui/timestamp";
import type { DecisionPacket } from "@/lib/runtime/types";

/** The packet as a link shows it: the action, its impact, who asked, and the evidence it rests on. */
export function LinkPacket({ packet, expiresAt }: { packet: DecisionPacket; expiresAt: Date }) {
  return (
    <Card
      title={packet.content.impact || packet.tool}
      description={`Asked by ${packet.requestedBy} · queue ${packet.queue}`}
    >
      <dl className="grid grid-cols-[8rem_1fr] gap-x-3 gap-y-2 text-sm">
        <dt className="text-zinc-500">Tool</dt>
        <dd className="font-mono">{packet.tool}</dd>
        <dt className="text-zinc-500">Arguments</dt>
        <dd>
          <JsonView value={packet.args} label="Arguments" />
        </dd>
        {packet.content.uncertainty && (
          <>
            <dt className="text-zinc-500">Uncertainty</dt>
            <dd>{packet.content.uncertainty}</dd>
          </>
        )}
        {packet.requiredApprovals > 1 && (
          <>
            <dt className="text-zinc-500">Approvals</dt>
            <dd>
              {packet.approvers.length} of {packet.requiredApprovals}
            </dd>
          </>
        )}
        <dt className="text-zinc-500">Link expires</dt>
        <dd>{formatUtc(expiresAt)}</dd>
      </dl>
      {packet.content.evidence.length > 0 && (
        <>
          <h3 className="mt-4 text-xs font-semibold uppercase tracking-wide text-zinc-500">Evidence</h3>
          <ul className="mt-1 space-y-1 text-sm">
            {packet.content.evidence.map((fact) => (
              <li key={fact.key} className="flex flex-wrap gap-x-2">
                <span className="font-mono text-zinc-700">{fact.key}</span>
                <JsonView value={fact.value} previewLength={80} label={fact.key} />
                <span className="text-xs text-zinc-500">
                  {fact.kind}, {formatUtc(fact.at)}
                </span>
              </li>
            ))}
          </ul>
        </>
      )}
    </Card>
  );
}
