import type { EvalResultDetail } from "@/lib/queries/eval-records";
import { type LabelledFigure, FigureList } from "./figure-list";
import { formatCount, formatMs, formatUsd } from "./format";
import { TimeSplit } from "./time-split";

/** One trial's tokens, cost and wall time, and how its time split between people and machine. */
export function TrialFigures({ result }: { result: EvalResultDetail }) {
  const figures: LabelledFigure[] = [
    ["Tokens", formatCount(result.tokens)],
    ["Cost", formatUsd(result.costUsd)],
    ["Wall time", formatMs(result.wallMs)],
  ];
  return (
    <>
      <FigureList figures={figures} className="mb-3 grid grid-cols-3 gap-2 text-sm" valueClassName="tabular-nums" />
      <TimeSplit humanWaitMs={result.humanWaitMs} machineMs={result.machineMs} />
    </>
  );
}
