import { Badge } from "@/components/ui/badge";
import { StatusDotBadge } from "@/components/ui/status-badge";
import type { EvalRunStatus } from "@/lib/evals/types";
import { EVAL_STATUS_TONES, formatScore, judgeScore } from "./format";

export function EvalStatusBadge({ status }: { status: EvalRunStatus }) {
  return <StatusDotBadge status={status} tone={EVAL_STATUS_TONES[status] ?? "gray"} />;
}

export function PassBadge({ passed }: { passed: boolean }) {
  return <Badge tone={passed ? "green" : "red"}>{passed ? "Passed" : "Failed"}</Badge>;
}

/** The mark beside a score below its threshold (hidden from screen readers, which hear the words instead). */
export const BELOW_THRESHOLD_MARK = "▼";

/** A score, coloured by its threshold when it has one; the verdict is in text too (not colour alone). */
export function ScoreValue({ value, threshold }: { value: number | null | undefined; threshold?: number | null }) {
  const verdict = judgeScore(value, threshold);
  const tone =
    verdict === "fail" ? "font-semibold text-red-700" : verdict === "pass" ? "text-emerald-800" : "text-zinc-700";
  return (
    <span
      className={`whitespace-nowrap tabular-nums ${tone}`}
      title={threshold !== undefined && threshold !== null ? `threshold ${formatScore(threshold)}` : undefined}
    >
      {formatScore(value)}
      {verdict === "fail" && <span className="sr-only"> (below its threshold of {formatScore(threshold)})</span>}
      {verdict === "fail" && <span aria-hidden>{` ${BELOW_THRESHOLD_MARK}`}</span>}
    </span>
  );
}
