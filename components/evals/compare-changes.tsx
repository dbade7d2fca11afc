import { Badge, type BadgeTone } from "@/components/ui/badge";
import { EmptyState } from "@/components/ui/empty-state";
import { type Column, DataTable } from "@/components/ui/data-table";
import type { TrialChange } from "@/lib/queries/eval-records";
import { PassBadge } from "./eval-badges";
import { DIMENSION_LABELS, formatScore, formatScoreDelta } from "./format";

const CHANGE: Record<TrialChange["change"], { label: string; tone: BadgeTone }> = {
  broke: { label: "broke", tone: "red" },
  fixed: { label: "fixed", tone: "green" },
  scores: { label: "scores changed", tone: "amber" },
  added: { label: "only in B", tone: "blue" },
  removed: { label: "only in A", tone: "gray" },
};

const COLUMNS: Column<TrialChange>[] = [
  { header: "Case", className: "font-mono text-xs", cell: (change) => change.caseId },
  { header: "Fault", className: "font-mono text-xs", cell: (change) => change.fault },
  {
    header: "Change",
    cell: (change) => <Badge tone={CHANGE[change.change].tone}>{CHANGE[change.change].label}</Badge>,
  },
  { header: "A", cell: (change) => <TrialOutcome trial={change.before} /> },
  { header: "B", cell: (change) => <TrialOutcome trial={change.after} /> },
  { header: "Scores that moved", className: "text-xs", cell: (change) => <ScoreMoves deltas={change.deltas} /> },
];

export function CompareChanges({ changes }: { changes: TrialChange[] }) {
  if (changes.length === 0)
    return (
      <EmptyState title="No trial changed">
        Every trial present in both runs has the same outcome and scores.
      </EmptyState>
    );
  return (
    <DataTable
      caption="Trials whose outcome or scores differ between A and B, regressions first"
      columns={COLUMNS}
      rows={changes}
      rowKey={(change) => `${change.caseId}\u0000${change.fault}`}
    />
  );
}

function TrialOutcome({ trial }: { trial: TrialChange["before"] }) {
  return trial ? <PassBadge passed={trial.passed} /> : <span className="text-xs text-zinc-500">not run</span>;
}

function ScoreMoves({ deltas }: { deltas: TrialChange["deltas"] }) {
  if (deltas.length === 0) return <span className="text-zinc-500">—</span>;
  return (
    <ul className="space-y-0.5">
      {deltas.map((d) => (
        <li key={d.dimension}>
          {DIMENSION_LABELS[d.dimension]}: {formatScore(d.before)} → {formatScore(d.after)}{" "}
          <span className="text-zinc-500">({formatScoreDelta(d.before, d.after)})</span>
        </li>
      ))}
    </ul>
  );
}
