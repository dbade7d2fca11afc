import { type Column, DataTable } from "@/components/ui/data-table";
import type { CheckResult, Dimension } from "@/lib/evals/spec";
import { DIMENSION_LABELS } from "./format";

const COLUMNS: Column<CheckResult>[] = [
  {
    header: "Result",
    className: (check) => (check.ok ? "text-emerald-800" : "font-semibold text-red-700"),
    cell: (check) => (check.ok ? "✓ ok" : "✗ failed"),
  },
  {
    header: "Dimension",
    className: "text-xs whitespace-nowrap",
    cell: (check) => DIMENSION_LABELS[check.dimension as Dimension] ?? check.dimension,
  },
  { header: "Check", className: "text-xs", cell: (check) => check.name },
  { header: "Why", className: "text-xs text-zinc-700", cell: (check) => check.detail ?? "" },
];

/** Every check the scorers made for the trial, the failed ones first, with the reason they give. */
export function TrialChecks({ checks }: { checks: CheckResult[] }) {
  if (checks.length === 0) return <p className="text-sm text-zinc-500">No checks were recorded.</p>;
  const ordered = [...checks].sort((a, b) => Number(a.ok) - Number(b.ok));
  return (
    <DataTable
      caption="Checks of this trial, failed first"
      columns={COLUMNS}
      rows={ordered}
      rowClassName={(check) => (check.ok ? undefined : "bg-red-50/60")}
    />
  );
}
