import { ConsoleLink } from "@/components/shell/console-links";
import { Table, Td, Th } from "@/components/ui/table";
import type { EvalResultDetail } from "@/lib/evals/queries";
import { DIMENSIONS, type Dimension } from "@/lib/evals/spec";
import { PassBadge, ScoreValue } from "./eval-badges";
import { DIMENSION_LABELS, formatCount, formatMs, formatUsd, judgeScore } from "./format";

/** One row per trial (case × fault): outcome, scores, what failed and why, cost and time. */
export function TrialsTable({
  evalRunId,
  results,
  thresholds,
}: {
  evalRunId: string;
  results: EvalResultDetail[];
  thresholds: Partial<Record<Dimension, number>>;
}) {
  return (
    <Table>
      <caption className="sr-only">Trials of this eval run: each case under each fault</caption>
      <thead>
        <tr>
          <Th>Case</Th>
          <Th>Fault</Th>
          <Th>Outcome</Th>
          <Th>Scores below threshold</Th>
          <Th>Failed checks</Th>
          <Th className="text-right">Cost · tokens</Th>
          <Th className="text-right">Human wait · machine</Th>
          <Th>
            <span className="sr-only">Trace</span>
          </Th>
        </tr>
      </thead>
      <tbody>
        {results.map((result) => {
          const failed = result.checks.filter((c) => !c.ok);
          const href = `/evals/runs/${encodeURIComponent(evalRunId)}/trials/${encodeURIComponent(result.id)}`;
          return (
            <tr key={result.id} className={result.passed ? "hover:bg-zinc-50" : "bg-red-50/40 hover:bg-red-50"}>
              <Td>
                <span className="font-mono text-xs">{result.caseId}</span>
                <div className="text-xs text-zinc-500">{result.agent}</div>
              </Td>
              <Td className="font-mono text-xs">{result.fault}</Td>
              <Td>
                <PassBadge passed={result.passed} />
                {result.runStatus && (
                  <div className="mt-0.5 text-xs text-zinc-600">
                    run {result.runStatus.toLowerCase().replaceAll("_", " ")}
                  </div>
                )}
              </Td>
              <Td className="text-xs">
                <TrialScores scores={result.scores} thresholds={thresholds} />
              </Td>
              <Td className="text-xs">
                {result.error && <p className="text-orange-800">Error: {result.error}</p>}
                {failed.length === 0 && !result.error ? (
                  <span className="text-zinc-500">none</span>
                ) : (
                  <ul className="space-y-0.5">
                    {failed.slice(0, 4).map((check, i) => (
                      <li key={i}>
                        <span className="font-medium text-red-800">{check.name}</span>
                        {check.detail && <span className="text-zinc-700"> — {check.detail}</span>}
                      </li>
                    ))}
                    {failed.length > 4 && <li className="text-zinc-500">and {failed.length - 4} more</li>}
                  </ul>
                )}
              </Td>
              <Td className="text-right text-xs tabular-nums">
                {formatUsd(result.costUsd)}
                <div className="text-zinc-500">{formatCount(result.tokens)} tok</div>
              </Td>
              <Td className="text-right text-xs tabular-nums">
                {formatMs(result.humanWaitMs)}
                <div className="text-zinc-500">{formatMs(result.machineMs)}</div>
              </Td>
              <Td>
                <ConsoleLink
                  href={href}
                  className="text-xs whitespace-nowrap text-blue-700 hover:underline"
                  aria-label={`Trace of ${result.caseId} under ${result.fault}`}
                >
                  Trace →
                </ConsoleLink>
              </Td>
            </tr>
          );
        })}
      </tbody>
    </Table>
  );
}

/** Only the scores under their threshold, so a long table stays readable; the trial page has them all. */
function TrialScores({
  scores,
  thresholds,
}: {
  scores: EvalResultDetail["scores"];
  thresholds: Partial<Record<Dimension, number>>;
}) {
  const below = DIMENSIONS.filter((d) => judgeScore(scores[d], thresholds[d]) === "fail");
  if (below.length === 0) return <span className="text-emerald-800">all at or above threshold</span>;
  return (
    <ul className="space-y-0.5">
      {below.map((d) => (
        <li key={d} className="whitespace-nowrap">
          {DIMENSION_LABELS[d]} <ScoreValue value={scores[d]} threshold={thresholds[d]} />
        </li>
      ))}
    </ul>
  );
}
