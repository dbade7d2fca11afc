import { Card } from "@/components/ui/card";
import type { EvalCaseSpec } from "@/lib/evals/spec";
import { CaseReviewer } from "./case-reviewer";
import { CaseWorld } from "./case-world";

/** What every trial of a case starts from: the run's input, the sandbox world, and the scripted reviewer. */
export function CaseSetup({ spec: { input, world, reviewer } }: { spec: EvalCaseSpec }) {
  return (
    <div className="space-y-4">
      <Card title="Input" description="What the agent run is started with.">
        <pre className="max-h-96 overflow-auto rounded bg-zinc-50 p-2 font-mono text-xs text-zinc-800">
          {JSON.stringify(input, null, 2) ?? "undefined"}
        </pre>
      </Card>
      <Card title="World set-up" description="The sandbox systems the agent acts on, as the trial starts them.">
        <CaseWorld world={world} />
      </Card>
      <Card
        title="Scripted reviewer answers"
        description="How the harness answers the run's decision packets, in order."
      >
        <CaseReviewer answers={reviewer} />
      </Card>
    </div>
  );
}
