import { EmptyState } from "@/components/ui/empty-state";

/** The command that fills the Evals pages: it imports the default dataset and stores an eval run. */
export const EVAL_COMMAND = "npm run eval -- --dataset default --faults all";

export function EvalCommand() {
  return <code className="rounded bg-zinc-100 px-1.5 py-0.5 font-mono text-xs text-zinc-800">{EVAL_COMMAND}</code>;
}

export function NoEvalRuns({ datasetName }: { datasetName?: string }) {
  return (
    <EmptyState title={datasetName ? `No eval runs of ${datasetName} yet` : "No eval runs yet"}>
      <p>
        Run the journey evals from the project folder: <EvalCommand />. Each eval run, its scores and every trial&apos;s
        trace appear here.
      </p>
    </EmptyState>
  );
}
