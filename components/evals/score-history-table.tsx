import { ConsoleLink } from "@/components/shell/console-links";
import { Table, Td, Th } from "@/components/ui/table";
import { Timestamp } from "@/components/ui/timestamp";
import type { ScorePoint } from "@/lib/evals/queries";
import { DIMENSIONS } from "@/lib/evals/spec";
import { DIMENSION_LABELS, formatScore } from "./format";

/** The chart's data, as a table: the accessible alternative to the SVG. */
export function ScoreHistoryTable({ points }: { points: ScorePoint[] }) {
  return (
    <div className="mt-2">
      <Table>
        <caption className="sr-only">Scores of each finished eval run, oldest first</caption>
        <thead>
          <tr>
            <Th>Eval run</Th>
            <Th>Started</Th>
            <Th>Code</Th>
            {DIMENSIONS.map((d) => (
              <Th key={d} className="text-right">
                {DIMENSION_LABELS[d]}
              </Th>
            ))}
          </tr>
        </thead>
        <tbody>
          {points.map((point) => (
            <tr key={point.evalRunId}>
              <Td>
                <ConsoleLink
                  href={`/evals/runs/${encodeURIComponent(point.evalRunId)}`}
                  className="font-mono text-xs text-blue-700 hover:underline"
                >
                  {point.evalRunId}
                </ConsoleLink>
              </Td>
              <Td className="text-xs">
                <Timestamp value={point.startedAt} />
              </Td>
              <Td className="font-mono text-xs">{point.codeVersion}</Td>
              {DIMENSIONS.map((d) => (
                <Td key={d} className="text-right tabular-nums">
                  {formatScore(point.scores[d])}
                </Td>
              ))}
            </tr>
          ))}
        </tbody>
      </Table>
    </div>
  );
}
