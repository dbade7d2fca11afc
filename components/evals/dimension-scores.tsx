import { Table, Td, Th } from "@/components/ui/table";
import { DIMENSIONS, type Dimension } from "@/lib/evals/spec";
import { ScoreValue } from "./eval-badges";
import { DIMENSION_LABELS, formatScore, judgeScore } from "./format";

const VERDICT_TEXT = { pass: "met", fail: "below", "n/a": "—" } as const;

/** Each dimension's aggregate score against its threshold, with a bar (the number is always in text). */
export function DimensionScores({
  scores,
  thresholds,
}: {
  scores: Partial<Record<Dimension, number | null>>;
  thresholds: Partial<Record<Dimension, number>>;
}) {
  return (
    <Table>
      <caption className="sr-only">Aggregate score per dimension and its threshold</caption>
      <thead>
        <tr>
          <Th>Dimension</Th>
          <Th className="w-1/3">Score</Th>
          <Th className="text-right">Value</Th>
          <Th className="text-right">Threshold</Th>
          <Th>Verdict</Th>
        </tr>
      </thead>
      <tbody>
        {DIMENSIONS.map((dimension) => {
          const value = scores[dimension] ?? null;
          const threshold = thresholds[dimension];
          const verdict = judgeScore(value, threshold);
          return (
            <tr key={dimension}>
              <Td className="font-medium">{DIMENSION_LABELS[dimension]}</Td>
              <Td>
                <div aria-hidden className="relative h-2.5 w-full rounded bg-zinc-100">
                  {value !== null && (
                    <div
                      className={`h-2.5 rounded ${verdict === "fail" ? "bg-red-600" : "bg-emerald-600"}`}
                      style={{ width: `${Math.max(0, Math.min(1, value)) * 100}%` }}
                    />
                  )}
                  {threshold !== undefined && (
                    <div
                      className="absolute -top-0.5 h-3.5 w-0.5 bg-zinc-900"
                      style={{ left: `calc(${threshold * 100}% - 1px)` }}
                    />
                  )}
                </div>
              </Td>
              <Td className="text-right">
                <ScoreValue value={value} threshold={threshold} />
              </Td>
              <Td className="text-right tabular-nums text-zinc-600">{formatScore(threshold)}</Td>
              <Td className={verdict === "fail" ? "font-medium text-red-700" : "text-zinc-600"}>
                {value === null ? "not applicable" : VERDICT_TEXT[verdict]}
              </Td>
            </tr>
          );
        })}
      </tbody>
    </Table>
  );
}
