import { canonicalJson, latestFact, type Decision, type Fact, type Observation, type RunState } from "@/lib/runtime";
import type { DefinedAgent } from "@/lib/sdk/define-agent";
import { SdkDefinitionError } from "@/lib/sdk/errors";

// What the scripted policies share (the SDK, lib/sdk, exports these helpers). A scripted policy is a pure
// function of the run's state (facts, observations, instructions): no network, no clock, no randomness —
// so a resumed run decides the same.

/** An agent of the demo (made with defineAgent), with an input that works against the seeded sandbox world and the grants it needs. */
export type DemoAgent = DefinedAgent;

export type Plan = RunState["plan"];
export type PlanStatus = Plan[number]["status"];

/** The step of the newest observation of this kind (and tool), or -1. */
export function lastStepOf(state: RunState, kind: Observation["kind"], tool?: string): number {
  for (let i = state.observations.length - 1; i >= 0; i--) {
    const o = state.observations[i];
    if (o.kind === kind && (!tool || o.tool === tool)) return o.step;
  }
  return -1;
}

/** The newest observation about this tool made after `afterStep` (a reply to the action the policy took). */
export function outcomeOf(state: RunState, tool: string, afterStep: number): Observation | undefined {
  const o = state.observations.at(-1);
  return o && o.tool === tool && o.step > afterStep ? o : undefined;
}

/** A tool call as a policy writes it; `evidence` (the fact keys it rests on) defaults to none. */
export type ToolCall = Omit<Extract<Decision, { kind: "call" }>, "kind" | "evidence"> & { evidence?: string[] };

const isToolError = (o: Observation) => o.kind === "tool_error";

/**
 * Call the tool, unless what came of its last call (after `afterStep`) was a failure: then the run fails with
 * `${failure}: ${the error}`. The engine retries a failing tool before it reports the error, so calling it
 * again would only fail again.
 */
export function callUnlessFailed(
  state: RunState,
  afterStep: number,
  failure: string,
  call: ToolCall,
  isFailure: (outcome: Observation) => boolean = isToolError,
): Decision {
  const outcome = outcomeOf(state, call.tool, afterStep);
  if (outcome && isFailure(outcome)) return { kind: "fail", reason: `${failure}: ${outcome.message}` };
  return { kind: "call", ...call, evidence: call.evidence ?? [] };
}

/** The newest instruction a person gave by redirecting the run (the agent's own come first). */
export function latestRedirect(state: RunState): string | undefined {
  return state.instructions.length > 1 ? state.instructions.at(-1) : undefined;
}

/** Did a person (or the expiry) turn the action down? Then the policy stops asking for it. */
export const isTurnedDown = (o: Observation) => o.kind === "rejected" || o.kind === "expired" || o.kind === "denied";

export const stepOf = (fact: Fact | undefined) => fact?.step ?? -1;

/** The plan with each step's status set; a step not named keeps "pending". */
export function planWith(template: Plan, statuses: Record<string, PlanStatus>): Plan {
  return template.map((step) => ({ ...step, status: statuses[step.id] ?? "pending" }));
}

/** A plan declared once, by its steps' ids: call it with statuses for the plan to record (a step not named
 *  keeps "pending"); `steps` is the plan defineAgent takes. */
export type DefinedPlan<Id extends string> = ((statuses: Partial<Record<Id, PlanStatus>>) => Plan) & {
  readonly steps: Plan;
};

/**
 * The plan as id → title, in the order the steps run: `definePlan({ research: "Read the docs", send: "Send it" })`.
 * A status given for an id the plan does not have is a type error. Ids that read as whole numbers are
 * refused: a JavaScript object lists those first, whatever order they were written in.
 */
export function definePlan<Id extends string>(titles: Record<Id, string>): DefinedPlan<Id> {
  const steps: Plan = Object.entries<string>(titles).map(([id, title]) => {
    if (/^\d+$/.test(id))
      throw new SdkDefinitionError(`Plan step id "${id}" is a number: give it a name, e.g. "step-${id}".`);
    return { id, title, status: "pending" };
  });
  const plan = (statuses: Partial<Record<Id, PlanStatus>>) => planWith(steps, statuses as Record<string, PlanStatus>);
  return Object.assign(plan, { steps });
}

/** A plan-only record step when the run's plan is behind, else null. Used before completing. */
export function syncPlan(state: RunState, plan: Plan, reason = "plan progress"): Decision | null {
  return canonicalJson(state.plan) === canonicalJson(plan) ? null : { kind: "record", facts: [], plan, reason };
}

/** Complete, after bringing the plan up to date (one extra step at most). */
export function completeWith(state: RunState, plan: Plan, output: unknown): Decision {
  return syncPlan(state, plan, "final plan") ?? { kind: "complete", output };
}

/** The policy helpers bound to one run's state, so a policy names the state once: `const run = readRun(state)`. */
export type RunReader = {
  readonly state: RunState;
  /** The newest fact under this key (latestFact). */
  fact(key: string): Fact | undefined;
  /** The step of the newest observation of this kind (and tool), or -1 (lastStepOf). */
  lastStep(kind: Observation["kind"], tool?: string): number;
  /** The newest observation about this tool made after `afterStep` (outcomeOf). */
  outcome(tool: string, afterStep: number): Observation | undefined;
  /** The newest instruction a person gave by redirecting the run (latestRedirect). */
  redirect(): string | undefined;
  /** Call the tool unless its last call since `afterStep` failed: then fail the run (callUnlessFailed). */
  callUnlessFailed(
    afterStep: number,
    failure: string,
    call: ToolCall,
    isFailure?: (outcome: Observation) => boolean,
  ): Decision;
  /** Complete, after bringing the plan up to date (completeWith). */
  complete(plan: Plan, output: unknown): Decision;
};

/** A view of the run's state whose methods are the policy helpers above; it reads, it never changes the state. */
export function readRun(state: RunState): RunReader {
  return {
    state,
    fact: (key) => latestFact(state, key),
    lastStep: (kind, tool) => lastStepOf(state, kind, tool),
    outcome: (tool, afterStep) => outcomeOf(state, tool, afterStep),
    redirect: () => latestRedirect(state),
    callUnlessFailed: (afterStep, failure, call, isFailure) =>
      callUnlessFailed(state, afterStep, failure, call, isFailure),
    complete: (plan, output) => completeWith(state, plan, output),
  };
}

/** "2 days", "30 seconds" → milliseconds; undefined when there is no duration in the text. */
export function parseDuration(text: string): number | undefined {
  const m = /(\d+(?:\.\d+)?)\s*(seconds?|secs?|s|minutes?|mins?|m|hours?|h|days?|d)\b/i.exec(text);
  if (!m) return undefined;
  const unit = m[2].toLowerCase();
  const ms = unit.startsWith("d")
    ? 86_400_000
    : unit.startsWith("h")
      ? 3_600_000
      : unit.startsWith("m")
        ? 60_000
        : 1000;
  return Math.round(Number(m[1]) * ms);
}
