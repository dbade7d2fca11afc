import { canonicalJson, sha256 } from "./canonical";
import type { RunCursor } from "./cursor";
import { decisionSchema, type Fact, type Observation, type Replay, type RunState } from "./state";
import type { RuntimeStore } from "./store";
import type { PolicyInput, PolicyOutput } from "./types";

// A forked run replays its source's recorded decisions (docs/design.md). Every decision a policy
// makes is recorded in the trace (model.decision) with the digest of what the policy was given; a fork
// copies, once, the source's decisions from its checkpoint on into its own state (`replay`). At each step
// where the fork would ask its policy, a recorded decision of that step whose digest is the fork's is
// taken instead; at the first step where they differ the fork has diverged: the replay is dropped and the
// policy decides from there on. A run that is not a fork pays nothing but the digest: no read per step.
//
// The digest covers what a decision rests on, without what differs between two runs that took the same
// path: fact ids and times, packet ids, operation ids, the journal, the usage, the clock. Two states with
// the same facts (key, kind, value, step, tool), plan, instructions, approvals, risks and observations
// digest alike; a read that returned something else, a new receipt id, another person's decision do not.

//
// Facts only ever grow, and a long run holds hundreds: they enter as a chain (each fact hashed once, onto
// the digest of those before it), so a step costs the same at step 200 as at step 20.

export function policyInputDigest(input: PolicyInput): string {
  const state = input.state;
  // The canonical JSON of these fields (keys sorted), with the observations' part rendered once per observation.
  const fields: Array<[string, string | undefined]> = [
    ["agent", canonicalJson(state.agent)],
    ["approvals", canonicalJson(state.approvals.map((a) => [a.step, a.tool, a.decision, a.usedAt !== null]))],
    ["consecutiveErrors", canonicalJson(state.consecutiveErrors)],
    ["facts", canonicalJson(factsDigest(state.facts))],
    ["input", canonicalJson(state.input)],
    ["instructions", canonicalJson(input.instructions)],
    ["observations", observationsJson(state.observations)],
    ["output", canonicalJson(state.output ?? null)],
    ["plan", canonicalJson(state.plan)],
    ["risks", canonicalJson(state.risks.map((r) => [r.level, r.description]))],
    ["step", canonicalJson(state.step)],
    ["tools", canonicalJson(input.tools.map((t) => t.name))],
  ];
  // As canonicalJson writes an object: a field whose value is undefined is left out.
  return sha256(`{${fields.flatMap(([key, json]) => (json === undefined ? [] : [`"${key}":${json}`])).join(",")}}`);
}

/** Each observation's part of the digest, rendered once: a run keeps its last 20 and a step adds one (an
 *  observation is never changed once made; a state read back has new objects, rendered again). */
const observationJson = new WeakMap<Observation, string>();
function observationsJson(observations: Observation[]): string {
  const parts = observations.map((o) => {
    let json = observationJson.get(o);
    if (json === undefined)
      observationJson.set(o, (json = canonicalJson([o.step, o.kind, o.tool ?? null, o.message, o.data ?? null])));
    return json;
  });
  return `[${parts.join(",")}]`;
}

type FactChain = { count: number; lastId: string | null; digest: string };
/** Per facts array (a run's state while a worker holds it): how far the chain has been hashed. */
const chains = new WeakMap<Fact[], FactChain>();

/** The chained digest of the facts: d(0) = "", d(i) = sha256(d(i-1) + the i-th fact's canonical JSON). */
function factsDigest(facts: Fact[]): string {
  const known = chains.get(facts);
  // Extend what was hashed when it is still a prefix of the array (the same last fact where it was).
  let chain =
    known && known.count <= facts.length && (known.count === 0 || facts[known.count - 1].id === known.lastId)
      ? known
      : { count: 0, lastId: null, digest: "" };
  for (let i = chain.count; i < facts.length; i++) {
    const f = facts[i];
    chain = { count: i + 1, lastId: f.id, digest: sha256(chain.digest + canonicalJson(digestedFact(f))) };
  }
  chains.set(facts, chain);
  return chain.digest;
}

/**
 * What of a fact a decision rests on. A person's decision on a gate is keyed by its packet and carries the
 * digest of the approved action, which is bound to the run and the rule's id: two runs given the same
 * decision on the same action would never digest alike. What was decided, at which step, is what counts.
 */
function digestedFact(f: Fact): unknown[] {
  if (f.kind === "decision" && f.key.startsWith("decision:")) {
    const { digest: _bound, ...decided } = (f.value ?? {}) as Record<string, unknown>;
    return ["decision", f.kind, decided, f.step, f.source.tool ?? null];
  }
  return [f.key, f.kind, f.value, f.step, f.source.tool ?? null];
}

const DECISION_EVENTS = new Set(["model.decision", "model.replayed"]);
const PAGE = 1000;

/** The source's recorded decisions from `fromStep` on, the last one of each step (read once, when forking). */
export async function recordedDecisions(
  store: RuntimeStore,
  runId: string,
  fromStep: number,
): Promise<Replay["decisions"]> {
  const byStep = new Map<number, Replay["decisions"][number]>();
  for (let afterSeq = 0; ;) {
    const events = await store.listEvents(runId, { afterSeq, limit: PAGE });
    for (const event of events) {
      if (!DECISION_EVENTS.has(event.type) || event.step < fromStep || typeof event.data.inputDigest !== "string")
        continue;
      const decision = decisionSchema.safeParse(event.data.decision);
      const queued = decisionSchema.array().safeParse(event.data.queued ?? []);
      if (decision.success && queued.success)
        byStep.set(event.step, {
          step: event.step,
          inputDigest: event.data.inputDigest,
          decision: decision.data,
          queued: queued.data,
        });
    }
    if (events.length < PAGE) break;
    afterSeq = events.at(-1)!.seq;
  }
  return [...byStep.values()].sort((a, b) => a.step - b.step);
}

/** The recorded answer for this step when the fork is still on its source's path; otherwise the replay ends. */
export function takeReplayed(
  cursor: RunCursor,
  inputDigest: string,
): (PolicyOutput & { from: string; step: number }) | null {
  const replay = cursor.state.replay;
  if (!replay) return null;
  const recorded = replay.decisions.find((d) => d.step === cursor.step);
  if (!recorded || recorded.inputDigest !== inputDigest) {
    cursor.state.replay = null;
    cursor.event("model.replay_ended", {
      from: replay.from,
      why: recorded ? "the state differs from the source's at this step" : "the source did not decide at this step",
      left: replay.decisions.filter((d) => d.step >= cursor.step).length,
    });
    return null;
  }
  const left = replay.decisions.filter((d) => d.step > cursor.step);
  cursor.state.replay = left.length > 0 ? { ...replay, decisions: left } : null;
  return { decision: recorded.decision, queued: recorded.queued, from: replay.from, step: recorded.step };
}

/** A fork's starting state: the checkpoint's, nothing pending, with the source's decisions to replay. */
export function forkState(checkpoint: RunState, from: string, decisions: Replay["decisions"]): RunState {
  return { ...checkpoint, pending: null, replay: decisions.length > 0 ? { from, decisions } : null };
}
