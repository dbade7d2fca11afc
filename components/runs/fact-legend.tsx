import { FACT_AUTHORITY, FACT_KINDS } from "@/lib/runtime/state";
import { FactKindBadge } from "./fact-kind-badge";

export function FactLegend() {
  return (
    <dl className="mb-3 grid gap-x-4 gap-y-1 text-xs text-zinc-500 sm:grid-cols-2">
      {FACT_KINDS.map((kind) => (
        <div key={kind} className="flex items-baseline gap-2">
          <dt className="shrink-0">
            <FactKindBadge kind={kind} />
          </dt>
          <dd>{FACT_AUTHORITY[kind].authority}</dd>
        </div>
      ))}
    </dl>
  );
}
