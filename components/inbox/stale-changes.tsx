import { Card } from "@/components/ui/card";
import { diffArgs } from "@/lib/inbox/diff";
import type { PacketContent } from "@/lib/runtime/types";
import { ArgsDiff } from "./args-diff";

/** A stale packet: what changed in each piece of evidence between the packet and the moment of acting. */
export function StaleChanges({ changes }: { changes: NonNullable<PacketContent["staleChanges"]> }) {
  return (
    <Card
      title="The evidence changed"
      description="Before the approved action ran, the runtime re-read the evidence and found it changed, so the approval was not used. The agent asks again with the fresh data."
    >
      <ul className="space-y-3">
        {changes.map((change) => (
          <li key={change.key}>
            <p className="mb-1 font-mono text-xs font-semibold text-zinc-900">{change.key}</p>
            <ArgsDiff entries={diffArgs(change.before, change.after)} label={`What changed in ${change.key}`} />
          </li>
        ))}
      </ul>
    </Card>
  );
}
