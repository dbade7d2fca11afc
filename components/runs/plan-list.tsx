import { Badge, type BadgeTone } from "@/components/ui/badge";
import type { RunState } from "@/lib/runtime/state";

type PlanStatus = RunState["plan"][number]["status"];

const PLAN_TONE: Record<PlanStatus, BadgeTone> = {
  pending: "gray",
  active: "blue",
  done: "green",
  skipped: "gray",
  failed: "red",
};

export function PlanList({ plan }: { plan: RunState["plan"] }) {
  if (plan.length === 0) return <p className="text-sm text-zinc-500">No plan.</p>;
  return (
    <ol className="space-y-1">
      {plan.map((item, i) => (
        <li key={item.id} className="flex items-center gap-2 text-sm">
          <span className="w-5 text-right text-xs text-zinc-500 tabular-nums">{i + 1}.</span>
          <span className={item.status === "skipped" ? "text-zinc-500 line-through" : "text-zinc-800"}>
            {item.title}
          </span>
          <Badge tone={PLAN_TONE[item.status]}>{item.status}</Badge>
        </li>
      ))}
    </ol>
  );
}
