import { Alert } from "@/components/ui/alert";
import type { EvalRunComparison } from "@/lib/queries/eval-records";
import { CompareView } from "./compare-view";

/** What the compare page shows under its picker: a prompt until two runs are picked, then their comparison. */
export function CompareResult({
  a,
  b,
  comparison,
}: {
  a: string | undefined;
  b: string | undefined;
  comparison: EvalRunComparison | null;
}) {
  if (!a || !b) return <p className="text-sm text-zinc-500">Choose a baseline and a candidate to see what changed.</p>;
  if (a === b) return <Alert tone="warning">Choose two different eval runs.</Alert>;
  if (!comparison) return <Alert tone="error">One of the eval runs does not exist (any more).</Alert>;
  return <CompareView comparison={comparison} />;
}
