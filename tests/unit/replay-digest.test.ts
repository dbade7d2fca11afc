import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalJson, sha256 } from "../../lib/runtime/canonical";
import { policyInputDigest } from "../../lib/runtime/replay";
import { appendObservation, initialState, type Fact, type Observation, type RunState } from "../../lib/runtime/state";
import type { PolicyInput } from "../../lib/runtime/types";

// The digest a fork compares its policy input with (replay.ts). Facts enter it as a chain hashed once per
// fact, remembered per facts array: the digest of a state must not depend on how it was reached — hashed
// step by step in a worker that held the run, or all at once in the worker that claims its fork.

const fact = (i: number, value: unknown = i): Fact => ({
  id: `fact_${i}`,
  key: `k${i}`,
  value,
  kind: "observation",
  at: new Date(1_000 * i).toISOString(),
  step: i,
  expiresAt: null,
  source: { tool: "orders.get" },
});
const inputOf = (state: RunState): PolicyInput => ({
  state,
  instructions: state.instructions,
  lastObservation: undefined,
  tools: [],
  now: () => new Date(0),
  randomId: () => "rnd",
});
const fresh = (facts: Fact[]) => ({
  ...initialState({
    agent: { slug: "a", version: "1", instructionsHash: "h" },
    instructions: "go",
    input: { orderId: "o1" },
  }),
  facts,
});

describe("policyInputDigest", () => {
  it("is the same for a state hashed step by step as for a copy hashed at once", () => {
    const growing = fresh([]);
    for (let i = 0; i < 30; i++) {
      growing.facts.push(fact(i));
      policyInputDigest(inputOf(growing)); // a worker hashing every step
    }
    expect(policyInputDigest(inputOf(growing))).toBe(policyInputDigest(inputOf(fresh(structuredClone(growing.facts)))));
  });

  it("differs when any fact differs, also one hashed long ago, and ignores fact ids and times", () => {
    const facts = Array.from({ length: 10 }, (_, i) => fact(i));
    const digest = policyInputDigest(inputOf(fresh(facts)));
    const changedEarly = facts.map((f, i) => (i === 1 ? { ...f, value: "other" } : f));
    expect(policyInputDigest(inputOf(fresh(changedEarly)))).not.toBe(digest);
    const renamed = facts.map((f) => ({ ...f, id: `${f.id}_fork`, at: new Date(0).toISOString() }));
    expect(policyInputDigest(inputOf(fresh(renamed)))).toBe(digest);
  });

  it("starts over when an array it hashed no longer begins with the facts it hashed", () => {
    const facts = Array.from({ length: 5 }, (_, i) => fact(i));
    const state = fresh(facts);
    policyInputDigest(inputOf(state));
    facts.splice(0, facts.length, ...Array.from({ length: 6 }, (_, i) => fact(i + 100)));
    expect(policyInputDigest(inputOf(state))).toBe(policyInputDigest(inputOf(fresh(structuredClone(facts)))));
  });

  it("digests a person's decision on a gate by what was decided, not by its packet or the run-bound action digest", () => {
    const decision = (packet: string, value: Record<string, unknown>): Fact => ({
      id: `fact_${packet}`,
      key: `decision:${packet}`,
      value,
      kind: "decision",
      at: new Date(0).toISOString(),
      step: 3,
      expiresAt: null,
      source: { by: "rita@example.com", packetId: packet },
    });
    const approvedHere = policyInputDigest(
      inputOf(fresh([fact(0), decision("pkt_a", { decision: "approve", digest: "bound-to-run-a" })])),
    );
    expect(
      policyInputDigest(
        inputOf(fresh([fact(0), decision("pkt_b", { decision: "approve", digest: "bound-to-run-b" })])),
      ),
    ).toBe(approvedHere);
    expect(
      policyInputDigest(
        inputOf(fresh([fact(0), decision("pkt_b", { decision: "reject", reason: "no", digest: "bound-to-run-b" })])),
      ),
    ).not.toBe(approvedHere);
  });

  it("is the sha256 of the canonical JSON of what a decision rests on, whether observations were rendered before or not", () => {
    // The digest as first written (one canonicalJson of the whole; facts that are not decisions): recorded digests must keep matching.
    const asFirstWritten = (input: PolicyInput) => {
      const state = input.state;
      return sha256(
        canonicalJson({
          agent: state.agent,
          instructions: input.instructions,
          input: state.input,
          step: state.step,
          plan: state.plan,
          facts: state.facts.reduce(
            (chain, f) => sha256(chain + canonicalJson([f.key, f.kind, f.value, f.step, f.source.tool ?? null])),
            "",
          ),
          approvals: state.approvals.map((a) => [a.step, a.tool, a.decision, a.usedAt !== null]),
          risks: state.risks.map((r) => [r.level, r.description]),
          observations: state.observations.map((o) => [o.step, o.kind, o.tool ?? null, o.message, o.data ?? null]),
          consecutiveErrors: state.consecutiveErrors,
          output: state.output ?? null,
          tools: input.tools.map((t) => t.name),
        }),
      );
    };
    const observation = fc.record({
      step: fc.nat(50),
      kind: fc.constantFrom<Observation["kind"]>("tool_result", "tool_error", "denied", "signal"),
      tool: fc.option(fc.string(), { nil: undefined }),
      message: fc.string(),
      data: fc.option(fc.jsonValue(), { nil: undefined }),
    });
    fc.assert(
      fc.property(
        fc.array(observation, { maxLength: 30 }),
        fc.jsonValue(),
        fc.option(fc.jsonValue(), { nil: undefined }),
        (observations, runInput, output) => {
          const state: RunState = {
            ...initialState({
              agent: { slug: "a", version: "1", instructionsHash: "h" },
              instructions: "go",
              input: runInput,
            }),
            facts: [fact(1)],
            output,
          };
          for (const o of observations) {
            state.observations = appendObservation(state.observations, o); // rendered step by step, as a worker does
            expect(policyInputDigest(inputOf(state))).toBe(asFirstWritten(inputOf(state)));
          }
          expect(policyInputDigest(inputOf(structuredClone(state)))).toBe(asFirstWritten(inputOf(state))); // a state read back
        },
      ),
      { numRuns: 100 },
    );
  });
});
