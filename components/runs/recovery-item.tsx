import { Badge } from "@/components/ui/badge";
import { JsonView } from "@/components/ui/json-view";
import { Timestamp } from "@/components/ui/timestamp";
import type { RecoveryItem as RecoveryItemData } from "@/lib/runtime/recovery";

export function RecoveryItem({ item }: { item: RecoveryItemData }) {
  return (
    <li className="rounded-md border border-zinc-200 p-2.5">
      <div className="flex flex-wrap items-center gap-1.5">
        <span className="font-mono text-sm font-medium text-zinc-900">{item.tool}</span>
        <Badge title="effect semantics">{item.semantics}</Badge>
        <span className="text-xs text-zinc-500">
          step {item.step} · attempt {item.attempt}
        </span>
      </div>
      <p className="mt-1 text-xs text-zinc-600">{item.why}</p>
      <p className="mt-1 text-[11px] text-zinc-500">
        <Timestamp value={item.at} />
      </p>
      <p
        className="truncate font-mono text-[11px] text-zinc-500"
        title={`operation id / idempotency key: ${item.operationId}`}
      >
        {item.operationId}
      </p>
      <div className="mt-1.5 space-y-1">
        <JsonView value={item.args} label="arguments" />
        {item.result !== undefined && <JsonView value={item.result} label="result" />}
      </div>
    </li>
  );
}
