import type { ReactNode } from "react";
import { JsonView } from "@/components/ui/json-view";
import type { RunState } from "@/lib/runtime/state";
import { ApprovalsList } from "./approvals-list";
import { FactsList } from "./facts-list";
import { PendingView } from "./pending-view";
import { PlanList } from "./plan-list";
import { RisksList } from "./risks-list";

function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <section className="py-3 first:pt-0 last:pb-0">
      <h3 className="mb-2 text-xs font-semibold tracking-wide text-zinc-500 uppercase">{title}</h3>
      {children}
    </section>
  );
}

/** The run's explicit state (docs/design.md): plan, facts with their authority, pending work, approvals. */
export function StateView({ state, now }: { state: RunState; now: Date }) {
  return (
    <div className="divide-y divide-zinc-100">
      <p className="pb-3 text-xs text-zinc-500">
        next step {state.step} · schema v{state.schemaVersion} · {state.agent.slug}@{state.agent.version} · instructions{" "}
        <span className="font-mono" title={state.agent.instructionsHash}>
          {state.agent.instructionsHash.slice(0, 12)}
        </span>{" "}
        · {state.usage.modelCalls} model calls · ${state.usage.costUsd.toFixed(4)}
      </p>
      <Section title="Plan">
        <PlanList plan={state.plan} />
      </Section>
      <Section title="Facts">
        <FactsList facts={state.facts} now={now} />
      </Section>
      <Section title="Pending">
        <PendingView pending={state.pending} />
      </Section>
      <Section title="Approvals">
        <ApprovalsList approvals={state.approvals} />
      </Section>
      {state.risks.length > 0 && (
        <Section title="Risks">
          <RisksList risks={state.risks} />
        </Section>
      )}
      {state.output !== undefined && (
        <Section title="Output">
          <JsonView value={state.output} label="output" />
        </Section>
      )}
    </div>
  );
}
