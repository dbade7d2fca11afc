import type { ChildOutcome } from "@/lib/runtime/children";
import type { Decision, RunState } from "@/lib/runtime";

// Child runs in a scripted policy (docs/agents.md, "Child runs"):
//
//   policy: ({ state }) => {
//     const review = childResult(state, "reviewer");
//     if (!review) return spawn("reviewer", { draft: "…" });   // the run waits for the reviewer's run
//     return review.status === "COMPLETED" ? completeWith(review.output) : { kind: "fail", reason: "no review" };
//   }

export type { ChildOutcome };

/** Start a run of `agent` with `input` and wait for it to end; its outcome becomes a receipt fact `child:<runId>`. */
export function spawn(
  agent: string,
  input: unknown,
  opts: { reason?: string } = {},
): Extract<Decision, { kind: "spawn" }> {
  return { kind: "spawn", agent, input, ...(opts.reason ? { reason: opts.reason } : {}) };
}

/** Every child run this run started that ended, oldest first (optionally only those of one agent). */
export function childResults(state: Pick<RunState, "facts">, agent?: string): ChildOutcome[] {
  return state.facts
    .filter((f) => f.kind === "receipt" && f.key.startsWith("child:"))
    .map((f) => f.value as ChildOutcome)
    .filter((c) => agent === undefined || c.agent === agent);
}

/** The newest child run (of `agent`) that ended, or undefined when none has. */
export function childResult(state: Pick<RunState, "facts">, agent?: string): ChildOutcome | undefined {
  return childResults(state, agent).at(-1);
}
