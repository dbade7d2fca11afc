import { FactKindBadge } from "@/components/runs/fact-kind-badge";
import { Card } from "@/components/ui/card";
import { ValueFields } from "@/components/ui/value-fields";
import { formatAge } from "@/lib/runtime/expiry";
import type { DecisionPacket } from "@/lib/runtime/types";

function sourceText(source: DecisionPacket["content"]["evidence"][number]["source"]): string | null {
  if (source.tool) return `read by ${source.tool}`;
  if (source.receiptId) return `receipt ${source.receiptId}`;
  if (source.by) return `decided by ${source.by}`;
  return null;
}

/** What the agent knew when it asked: each fact with its provenance and age, then its uncertainty and reasoning. */
export function PacketEvidence({ packet }: { packet: DecisionPacket }) {
  const { evidence, uncertainty, reasoning, staleChanges, why } = packet.content;
  return (
    <>
      <Card
        title="Evidence"
        description="Facts the agent relied on, with where each came from and its age when the packet was made."
      >
        {evidence.length === 0 ? (
          <p className="text-sm text-zinc-500">The agent gave no evidence.</p>
        ) : (
          <ul aria-label="Evidence" className="divide-y divide-zinc-100">
            {evidence.map((fact) => (
              <li key={`${fact.key}-${fact.at}`} className="flex flex-wrap items-start gap-x-3 gap-y-1 py-2">
                <span className="font-mono text-xs font-semibold text-zinc-900">{fact.key}</span>
                <FactKindBadge kind={fact.kind} />
                <span className="text-xs text-zinc-500">{formatAge(fact.ageMs)} old</span>
                {sourceText(fact.source) && <span className="text-xs text-zinc-500">· {sourceText(fact.source)}</span>}
                <div className="w-full min-w-0">
                  <ValueFields value={fact.value} label={fact.key} />
                </div>
              </li>
            ))}
          </ul>
        )}
        {staleChanges && staleChanges.length > 0 && (
          <p className="mt-2 text-sm text-orange-800">
            The evidence changed since: {staleChanges.map((c) => c.key).join(", ")}.
          </p>
        )}
      </Card>
      <Card title="Uncertainty and reasoning">
        <dl className="space-y-2 text-sm">
          {why && (
            <div>
              <dt className="text-xs text-zinc-500">Why a person is asked</dt>
              <dd className="text-zinc-800">{why}</dd>
            </div>
          )}
          <div>
            <dt className="text-xs text-zinc-500">Uncertainty</dt>
            <dd className="text-zinc-800">{uncertainty ?? <span className="text-zinc-500">none stated</span>}</dd>
          </div>
          <div>
            <dt className="text-xs text-zinc-500">Reasoning</dt>
            <dd className="text-zinc-800">{reasoning ?? <span className="text-zinc-500">none stated</span>}</dd>
          </div>
        </dl>
      </Card>
    </>
  );
}
