import { Card } from "@/components/ui/card";
import type { EvalResultDetail } from "@/lib/queries/eval-records";
import { LedgerTable } from "./ledger-table";
import { TraceEvents } from "./trace-events";

/** What the trial's run left behind: the effects the sandbox recorded, and the run's trace as kept with the result. */
export function TrialRunRecord({ result }: { result: EvalResultDetail }) {
  const traceDescription = result.runId
    ? `Run ${result.runId} lived in the trial's throwaway database; these are its events as kept with the result.`
    : "The events kept with the result.";
  return (
    <div className="space-y-4">
      <Card title="Ledger effects" description="What the sandbox systems recorded during the trial.">
        <LedgerTable rows={result.ledger} />
      </Card>
      <Card title="Trace of the run" description={traceDescription}>
        <TraceEvents events={result.trace} />
      </Card>
    </div>
  );
}
