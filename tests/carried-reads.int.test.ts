import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import type { AgentDefinition, Decision, RuntimeOptions, ToolDefinition } from "../lib/runtime";
import { createTestRuntime, grant, providers, uid } from "./support/runtime";

// A pure read chosen without asking a model is redone for free, so it is carried to the next commit
// instead of having one of its own (cursor.ts commitRead). What a run ends with is the same as with a commit
// per step; a model's decision is never carried; a crash loses only carried reads, which the run redoes
// (tests/crash.int.test.ts kills a worker holding one).

const READS = 5;

/** A scripted reader: READS pure reads, then complete. `paid`: its policy reports a model's usage. */
function reader(slug: string, paid: boolean): AgentDefinition {
  return {
    slug,
    version: "1",
    name: slug,
    description: "reads, then completes",
    instructions: "Read five times.",
    input: z.unknown(),
    tools: ["probe.read"],
    policy: {
      async decide({ state }) {
        const decision: Decision =
          state.step < READS
            ? { kind: "call", tool: "probe.read", args: { n: state.step }, resultKey: `r${state.step}`, evidence: [] }
            : { kind: "complete", output: { reads: state.step } };
        return { decision, ...(paid ? { usage: { inputTokens: 10, outputTokens: 2 } } : {}) };
      },
    },
  };
}

describe.each(providers())("carried reads [%s]", (_provider, url) => {
  let readMs = 0;
  const probe: ToolDefinition<{ n: number }> = {
    name: "probe.read",
    description: "Reads a probe",
    capability: "read",
    semantics: "pure-read",
    input: z.object({ n: z.number() }),
    impact: () => "reads a probe",
    run: async ({ n }) => {
      if (readMs) await new Promise((resolve) => setTimeout(resolve, readMs));
      return { n, value: `probe ${n}` };
    },
  };
  const free = reader(uid("carry-free"), false);
  const paid = reader(uid("carry-paid"), true);
  const runtimes: Array<ReturnType<typeof createTestRuntime>> = [];

  /** A runtime on the shared database whose step commits are counted. */
  function counted(opts: Partial<RuntimeOptions> = {}) {
    const t = createTestRuntime(url, { agents: [free, paid], tools: [probe], ...opts });
    runtimes.push(t);
    const commits: Array<{ runId: string; step: number; releaseLease: boolean }> = [];
    const commitStep = t.store.commitStep.bind(t.store);
    t.store.commitStep = (commit) => {
      commits.push({ runId: commit.lease.runId, step: commit.state.step, releaseLease: !!commit.releaseLease });
      return commitStep(commit);
    };
    return { ...t, commits };
  }

  beforeAll(async () => {
    const t = counted();
    await grant(t.runtime, free);
    await grant(t.runtime, paid);
  });
  afterAll(async () => {
    for (const t of runtimes) await t.close();
  });

  async function runToEnd(t: ReturnType<typeof counted>, agent: AgentDefinition) {
    const id = (await t.runtime.startRun({ agent: agent.slug, input: {} })).run.id;
    await t.runtime.createWorker().drain();
    const run = await t.runtime.getRun(id);
    const events = await t.store.listEvents(id);
    return { run, events, commits: t.commits.filter((c) => c.runId === id) };
  }

  it("free reads ride on the next commit: one commit for the run, and it ends exactly as with a commit per step", async () => {
    // No time bound here: however slow the machine, the count is the steps'.
    const carried = await runToEnd(counted({ carryReads: { maxSteps: 32, maxMs: 60_000 } }), free);
    const perStep = await runToEnd(counted({ carryReads: false }), free);

    expect(perStep.commits).toHaveLength(READS + 1);
    expect(carried.commits).toHaveLength(1);
    expect(carried.commits[0].releaseLease).toBe(true);
    for (const { run } of [carried, perStep]) {
      expect(run.status).toBe("COMPLETED");
      expect(run.state.step).toBe(READS);
    }
    const facts = (r: typeof carried) => r.run.state.facts.map((f) => [f.key, f.value, f.step]);
    expect(facts(carried)).toEqual(facts(perStep));
    expect(facts(carried)).toHaveLength(READS);
    const observations = (r: typeof carried) => r.run.state.observations.map((o) => [o.kind, o.step, o.message]);
    expect(observations(carried)).toEqual(observations(perStep));
    // The trace holds every step's events, in the same order.
    const trace = (r: typeof carried) => r.events.map((e) => [e.type, e.step]);
    expect(trace(carried)).toEqual(trace(perStep));
    expect(trace(carried).filter(([type]) => type === "tool.call")).toHaveLength(READS);
  });

  it("every carried step keeps its checkpoint: the state each step began with, as the policy saw it", async () => {
    const t = counted({ carryReads: { maxSteps: 32, maxMs: 60_000 } });
    const seen = new Map<number, unknown>();
    const agent = reader(uid("carry-checkpoints"), false);
    const decide = agent.policy.decide;
    agent.policy.decide = (input) => {
      seen.set(input.state.step, structuredClone(input.state));
      return decide(input);
    };
    t.runtime.context.agents.set(agent.slug, agent);
    await grant(t.runtime, agent);
    const { run, commits } = await runToEnd(t, agent);
    expect(commits).toHaveLength(1);
    const checkpoints = await t.store.listCheckpoints(run.id);
    // The new run's, one per carried read, the completion's.
    expect(checkpoints.map((c) => [c.seq, c.step])).toEqual([
      [1, 0],
      ...Array.from({ length: READS }, (_, i) => [i + 2, i + 1]),
      [READS + 2, READS],
    ]);
    for (const step of Array.from({ length: READS }, (_, i) => i + 1)) {
      const checkpoint = await t.store.getCheckpoint(run.id, step + 1);
      expect(checkpoint!.state).toEqual(seen.get(step));
      expect(checkpoint!.state.facts.map((f) => f.key)).toEqual(Array.from({ length: step }, (_, i) => `r${i}`));
    }
    expect((await t.store.getCheckpoint(run.id, READS + 2))!.state).toEqual(run.state);
  });

  it("a model's decision is never carried: each of its reads is committed at once", async () => {
    const { run, commits } = await runToEnd(counted(), paid);
    expect(run.status).toBe("COMPLETED");
    expect(run.state.usage.modelCalls).toBe(READS + 1);
    expect(commits).toHaveLength(READS + 1);
  });

  it("carries at most maxSteps steps: the last of them commits them all", async () => {
    const { run, commits } = await runToEnd(counted({ carryReads: { maxSteps: 3, maxMs: 60_000 } }), free);
    expect(run.status).toBe("COMPLETED");
    // reads 0–2 in the third read's commit; reads 3–4 in the completion's.
    expect(commits.map((c) => c.step)).toEqual([3, READS]);
  });

  it("carries no longer than maxMs: a read slower than that commits what was carried before it", async () => {
    readMs = 10;
    try {
      const { run, commits } = await runToEnd(counted({ carryReads: { maxSteps: 32, maxMs: 2 } }), free);
      expect(run.status).toBe("COMPLETED");
      // Each read is carried at first, and the next, begun past maxMs later, commits both.
      expect(commits.map((c) => c.step)).toEqual([2, 4, READS]);
    } finally {
      readMs = 0;
    }
  });

  it("a worker giving the run back between steps commits what it carried with the release", async () => {
    const t = counted({ carryReads: { maxSteps: 32, maxMs: 60_000 } });
    const id = (await t.runtime.startRun({ agent: free.slug, input: {} })).run.id;
    const worker = t.runtime.createWorker({ maxStepsPerClaim: 2 });
    expect(await worker.runOnce({ runId: id })).toBe(true);
    expect(t.commits.filter((c) => c.runId === id)).toEqual([{ runId: id, step: 2, releaseLease: true }]);
    const given = await t.runtime.getRun(id);
    expect(given.status).toBe("RUNNING");
    expect(given.leaseOwner).toBeNull();
    expect(given.state.step).toBe(2);
    expect(given.state.facts.map((f) => f.key)).toEqual(["r0", "r1"]);
    await t.runtime.createWorker().drain();
    expect((await t.runtime.getRun(id)).state.step).toBe(READS);
  });
});
