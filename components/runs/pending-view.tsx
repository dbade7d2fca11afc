import { JsonView } from "@/components/ui/json-view";
import { Timestamp } from "@/components/ui/timestamp";
import type { Pending } from "@/lib/runtime/state";

/** What the run is waiting on, in words. */
export function PendingView({ pending }: { pending: Pending | null }) {
  if (!pending) return <p className="text-sm text-zinc-500">Nothing pending.</p>;
  switch (pending.kind) {
    case "effect":
      return (
        <div className="space-y-1 text-sm text-zinc-700">
          <p>
            Effect in flight: <span className="font-mono">{pending.action.tool}</span> (step {pending.step}, call{" "}
            {pending.call})
          </p>
          <p className="font-mono text-xs text-zinc-500">intent {pending.intentId}</p>
          <JsonView value={pending.action.args} label="arguments" />
        </div>
      );
    case "gate":
      return (
        <div className="space-y-1 text-sm text-zinc-700">
          <p>
            Waiting for a decision on <span className="font-mono">{pending.action.tool}</span> (step {pending.step})
          </p>
          <p className="font-mono text-xs text-zinc-500">packet {pending.packetId}</p>
          <JsonView value={pending.action.args} label="proposed arguments" />
        </div>
      );
    case "event":
      return (
        <p className="text-sm text-zinc-700">
          Waiting for a <span className="font-mono">{pending.eventType}</span> event
          {pending.timeoutAt && (
            <>
              {" "}
              until <Timestamp value={pending.timeoutAt} />
            </>
          )}
        </p>
      );
    case "sleep":
      return (
        <p className="text-sm text-zinc-700">
          Sleeping until <Timestamp value={pending.until} />
        </p>
      );
    case "budget":
      return (
        <div className="space-y-1 text-sm text-zinc-700">
          <p>
            Reached its budget: a person extends it or stops the run (step {pending.step})
            {pending.action && (
              <>
                ; its next call, <span className="font-mono">{pending.action.tool}</span>, waits
              </>
            )}
          </p>
          <p className="font-mono text-xs text-zinc-500">packet {pending.packetId}</p>
        </div>
      );
  }
}
