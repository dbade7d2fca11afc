import { ValueFields } from "@/components/ui/value-fields";
import { Timestamp } from "@/components/ui/timestamp";
import type { Fact } from "@/lib/runtime/state";
import { FactKindBadge } from "./fact-kind-badge";
import { FactLegend } from "./fact-legend";

function sourceText(source: Fact["source"]): string {
  const parts = [
    source.tool && `tool ${source.tool}`,
    source.receiptId && `receipt ${source.receiptId}`,
    source.by && `by ${source.by}`,
    source.packetId && `packet ${source.packetId}`,
    source.operationId && `op ${source.operationId}`,
  ];
  return parts.filter(Boolean).join(" · ");
}

function Freshness({ fact, now }: { fact: Fact; now: Date }) {
  if (!fact.expiresAt) return null;
  const isStale = new Date(fact.expiresAt) <= now;
  return (
    <span className={isStale ? "font-medium text-red-700" : "text-zinc-500"}>
      {isStale ? "stale since " : "fresh until "}
      <Timestamp value={fact.expiresAt} />
    </span>
  );
}

/** Facts are append-only: a newer fact under the same key supersedes an older one. */
export function FactsList({ facts, now }: { facts: Fact[]; now: Date }) {
  if (facts.length === 0) return <p className="text-sm text-zinc-500">No facts recorded.</p>;
  const latestIndex = new Map(facts.map((fact, i) => [fact.key, i]));
  return (
    <>
      <FactLegend />
      <ul className="divide-y divide-zinc-100">
        {facts.map((fact, i) => {
          const isSuperseded = latestIndex.get(fact.key) !== i;
          return (
            <li key={fact.id} className={`py-2 ${isSuperseded ? "opacity-50" : ""}`}>
              <div className="flex flex-wrap items-center gap-2">
                <FactKindBadge kind={fact.kind} />
                <span className="font-mono text-sm text-zinc-900">{fact.key}</span>
                {isSuperseded && <span className="text-xs text-zinc-500">superseded</span>}
              </div>
              <div className="mt-1">
                <ValueFields value={fact.value} label={fact.key} />
              </div>
              <p className="mt-1 flex flex-wrap gap-x-3 text-xs text-zinc-500">
                <span>
                  step {fact.step} · <Timestamp value={fact.at} />
                </span>
                <Freshness fact={fact} now={now} />
                {sourceText(fact.source) && <span>{sourceText(fact.source)}</span>}
              </p>
            </li>
          );
        })}
      </ul>
    </>
  );
}
