import { Badge, type BadgeTone } from "@/components/ui/badge";
import { EmptyState } from "@/components/ui/empty-state";
import { Table, Td, Th } from "@/components/ui/table";
import type { TrialChange } from "@/lib/evals/queries";
import { PassBadge } from "./eval-badges";
import { DIMENSION_LABELS, formatScore, formatScoreDelta } from "./format";

const CHANGE: Record<TrialChange["change"], { label: string; tone: BadgeTone }> = {
  broke: { label: "broke", tone: "red" },
  fixed: { label: "fixed", tone: "green" },
  scores: { label: "scores changed", tone: "amber" },
  added: { label: "only in B", tone: "blue" },
  removed: { label: "only in A", tone: "gray" },
};

export function CompareChanges({ changes }: { changes: TrialChange[] }) {
  if (changes.length === 0)
    return (
      <EmptyState title="No trial changed">
        Every trial present in both runs has the same outcome and scores.
      </EmptyState>
    );
  return (
    <Table>
      <caption className="sr-only">Trials whose outcome or scores differ between A and B, regressions first</caption>
      <thead>
        <tr>
          <Th>Case</Th>
          <Th>Fault</Th>
          <Th>Change</Th>
          <Th>A</Th>
          <Th>B</Th>
          <Th>Scores that moved</Th>
        </tr>
      </thead>
      <tbody>
        {changes.map((change) => (
          <tr key={`${change.caseId}\u0000${change.fault}`}>
            <Td className="font-mono text-xs">{change.caseId}</Td>
            <Td className="font-mono text-xs">{change.fault}</Td>
            <Td>
              <Badge tone={CHANGE[change.change].tone}>{CHANGE[change.change].label}</Badge>
            </Td>
            <Td>
              {change.before ? (
                <PassBadge passed={change.before.passed} />
              ) : (
                <span className="text-xs text-zinc-500">not run</span>
              )}
            </Td>
            <Td>
              {change.after ? (
                <PassBadge passed={change.after.passed} />
              ) : (
                <span className="text-xs text-zinc-500">not run</span>
              )}
            </Td>
            <Td className="text-xs">
              {change.deltas.length === 0 ? (
                <span className="text-zinc-500">—</span>
              ) : (
                <ul className="space-y-0.5">
                  {change.deltas.map((d) => (
                    <li key={d.dimension}>
                      {DIMENSION_LABELS[d.dimension]}: {formatScore(d.before)} → {formatScore(d.after)}{" "}
                      <span className="text-zinc-500">({formatScoreDelta(d.before, d.after)})</span>
                    </li>
                  ))}
                </ul>
              )}
            </Td>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}
