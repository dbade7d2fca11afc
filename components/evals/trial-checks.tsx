import { Table, Td, Th } from "@/components/ui/table";
import type { CheckResult, Dimension } from "@/lib/evals/spec";
import { DIMENSION_LABELS } from "./format";

/** Every check the scorers made for the trial, the failed ones first, with the reason they give. */
export function TrialChecks({ checks }: { checks: CheckResult[] }) {
  if (checks.length === 0) return <p className="text-sm text-zinc-500">No checks were recorded.</p>;
  const ordered = [...checks].sort((a, b) => Number(a.ok) - Number(b.ok));
  return (
    <Table>
      <caption className="sr-only">Checks of this trial, failed first</caption>
      <thead>
        <tr>
          <Th>Result</Th>
          <Th>Dimension</Th>
          <Th>Check</Th>
          <Th>Why</Th>
        </tr>
      </thead>
      <tbody>
        {ordered.map((check, i) => (
          <tr key={i} className={check.ok ? undefined : "bg-red-50/60"}>
            <Td className={check.ok ? "text-emerald-800" : "font-semibold text-red-700"}>
              {check.ok ? "✓ ok" : "✗ failed"}
            </Td>
            <Td className="text-xs whitespace-nowrap">
              {DIMENSION_LABELS[check.dimension as Dimension] ?? check.dimension}
            </Td>
            <Td className="text-xs">{check.name}</Td>
            <Td className="text-xs text-zinc-700">{check.detail ?? ""}</Td>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}
