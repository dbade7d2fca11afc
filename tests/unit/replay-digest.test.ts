import { describe, expect, it } from "vitest";
import { policyInputDigest } from "../../lib/runtime/replay";
import { initialState, type Fact, type RunState } from "../../lib/runtime/state";
import type { PolicyInput } from "../../lib/runtime/types";

// The digest a fork compares its policy input with (replay.ts). Facts enter it as a chain hashed once per
// fact, remembered per facts array: the digest of a state must not depend on how it was reached — hashed
// step by step in a worker that held the run, or all at once in the worker that claims its fork.

const fact = (i: number, value: unknown = i): Fact => ({
  id: `fact_${i}`, key: `k${i}`, value, kind: "observation", at: new Date(1_000 * i).toISOString(), step: i, expiresAt: null, source: { tool: "orders.get" },
});
const inputOf = (state: RunState): PolicyInput => ({ state, instructions: state.instructions, lastObservation: undefined, tools: [], now: () => new Date(0), randomId: () => "rnd" });
const fresh = (facts: Fact[]) => ({ ...initialState({ agent: { slug: "a", version: "1", instructionsHash: "h" }, instructions: "go", input: { orderId: "o1" } }), facts });

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
      id: `fact_${packet}`, key: `decision:${packet}`, value, kind: "decision", at: new Date(0).toISOString(), step: 3, expiresAt: null, source: { by: "rita@example.com", packetId: packet },
    });
    const approvedHere = policyInputDigest(inputOf(fresh([fact(0), decision("pkt_a", { decision: "approve", digest: "bound-to-run-a" })])));
    expect(policyInputDigest(inputOf(fresh([fact(0), decision("pkt_b", { decision: "approve", digest: "bound-to-run-b" })])))).toBe(approvedHere);
    expect(policyInputDigest(inputOf(fresh([fact(0), decision("pkt_b", { decision: "reject", reason: "no", digest: "bound-to-run-b" })])))).not.toBe(approvedHere);
  });
});
