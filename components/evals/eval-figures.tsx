import type { EvalFigures as Figures } from "@/lib/evals/types";
import { type LabelledFigure, FigureList } from "./figure-list";
import { formatCount, formatMs, formatUsd } from "./format";
import { TimeSplit } from "./time-split";

/** The eval run's totals: trials, tokens, cost, and where the time went. */
export function EvalFigures({
  figures,
  durationMs,
}: {
  figures: Partial<Figures> | undefined;
  durationMs: number | null;
}) {
  if (!figures)
    return <p className="text-sm text-zinc-500">No figures yet: they are computed when the eval run finishes.</p>;
  const items: LabelledFigure[] = [
    ["Trials passed", `${formatCount(figures.passed)} of ${formatCount(figures.trials)}`],
    ["Cases", formatCount(figures.cases)],
    ["Tokens", formatCount(figures.tokens)],
    ["Cost", formatUsd(figures.costUsd)],
    ["Wall time (all trials)", formatMs(figures.wallMs)],
    ["Machine time p50 / p95", `${formatMs(figures.p50MachineMs)} / ${formatMs(figures.p95MachineMs)}`],
    ["Eval run took", formatMs(durationMs)],
  ];
  return (
    <div className="space-y-3">
      <FigureList
        figures={items}
        className="grid grid-cols-2 gap-x-4 gap-y-2 text-sm"
        valueClassName="tabular-nums text-zinc-900"
      />
      <TimeSplit humanWaitMs={figures.humanWaitMs ?? 0} machineMs={figures.machineMs ?? 0} />
    </div>
  );
}
