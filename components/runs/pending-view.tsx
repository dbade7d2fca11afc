import type { ReactNode } from "react";
import { JsonView } from "@/components/ui/json-view";
import { Timestamp } from "@/components/ui/timestamp";
import type { Pending } from "@/lib/runtime/state";

/** What the run is waiting on, in words. */
export function PendingView({ pending }: { pending: Pending | null }) {
  if (!pending) return <p className="text-sm text-zinc-500">Nothing pending.</p>;
  switch (pending.kind) {
    case "effect":
      return (
        <HeldCall tracking={`intent ${pending.intentId}`} args={{ value: pending.action.args, label: "arguments" }}>
          Effect in flight: <span className="font-mono">{pending.action.tool}</span> (step {pending.step}, call{" "}
          {pending.call})
        </HeldCall>
      );
    case "gate":
      return (
        <HeldCall
          tracking={`packet ${pending.packetId}`}
          args={{ value: pending.action.args, label: "proposed arguments" }}
        >
          Waiting for a decision on <span className="font-mono">{pending.action.tool}</span> (step {pending.step})
        </HeldCall>
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
        <HeldCall tracking={`packet ${pending.packetId}`}>
          Reached its budget: a person extends it or stops the run (step {pending.step})
          {pending.action && (
            <>
              ; its next call, <span className="font-mono">{pending.action.tool}</span>, waits
            </>
          )}
        </HeldCall>
      );
  }
}

/** A call the run holds back: what it waits for, the id that tracks it, and the call's arguments if it has any. */
function HeldCall({
  tracking,
  args,
  children,
}: {
  tracking: string;
  args?: { value: unknown; label: string };
  children: ReactNode;
}) {
  return (
    <div className="space-y-1 text-sm text-zinc-700">
      <p>{children}</p>
      <p className="font-mono text-xs text-zinc-500">{tracking}</p>
      {args && <JsonView value={args.value} label={args.label} />}
    </div>
  );
}
