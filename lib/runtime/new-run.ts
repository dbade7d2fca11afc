import { budgetFor } from "./budget";
import { sha256 } from "./canonical";
import { initialState, type BudgetLimits, type RunState } from "./state";
import type { AgentDefinition, TraceEventInput } from "./types";

// A new run's first state and its run.created event, for every way a run is started: by a caller
// (engine startRun) or by another run's step (children.ts).

export function newRunState(agent: AgentDefinition, input: unknown, budget?: BudgetLimits): RunState {
  return initialState({
    agent: { slug: agent.slug, version: agent.version, instructionsHash: sha256(agent.instructions) },
    instructions: agent.instructions,
    input,
    plan: agent.plan,
    budget: budgetFor(agent.budget, budget),
  });
}

export function runCreatedEvent(agent: AgentDefinition, state: RunState, startedBy: string | null): TraceEventInput {
  const limits = state.budget.limits;
  return {
    type: "run.created",
    step: 0,
    data: {
      agent: agent.slug,
      version: agent.version,
      input: state.input,
      startedBy,
      ...(Object.keys(limits).length ? { budget: limits } : {}),
    },
  };
}
