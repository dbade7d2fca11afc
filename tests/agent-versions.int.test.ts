import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import type { AgentDefinition, Decision } from "../lib/runtime";
import { createTestRuntime, expectError, providers, uid } from "./support/runtime";

// A run keeps the agent version it started with: when the deployment's code for its agent changes while
// it waits, the next step does not run the new code with the old run's state; it stops (NEEDS_ATTENTION)
// until an operator upgrades it explicitly, and continues on the new version's instructions.

describe.each(providers())("agent versions [%s]", (_provider, url) => {
  let t: ReturnType<typeof createTestRuntime>;
  beforeAll(() => { t = createTestRuntime(url); });
  afterAll(async () => { await t.close(); });
  const drain = () => t.runtime.createWorker().drain();

  /** Version `version` of one agent: waits for a "go" signal, then completes saying which version finished. */
  function version(slug: string, version: string, calls: string[]): AgentDefinition {
    return {
      slug, version, name: slug, description: "waits, then completes", instructions: `Version ${version}: wait for go, then complete.`, input: z.unknown(), tools: [],
      policy: {
        async decide({ state, instructions }) {
          calls.push(version);
          const decision: Decision = state.step === 0
            ? { kind: "wait_event", eventType: "go" }
            : { kind: "complete", output: { finishedBy: version, instructions: instructions[0] } };
          return { decision };
        },
      },
    };
  }

  it("stops a waiting run when its agent's version changed, and continues it on the new version only when upgraded", async () => {
    const slug = uid("versioned");
    const calls: string[] = [];
    t.runtime.context.agents.set(slug, version(slug, "1", calls));
    const { run } = await t.runtime.startRun({ agent: slug, input: {} });
    await drain();
    expect((await t.runtime.getRun(run.id)).status).toBe("WAITING_EVENT");

    t.runtime.context.agents.set(slug, version(slug, "2", calls)); // a deployment with new code
    await t.runtime.deliverSignal(run.id, { type: "go", dedupKey: uid("go"), payload: {} });
    await drain();
    const stopped = await t.runtime.getRun(run.id);
    expect(stopped).toMatchObject({ status: "NEEDS_ATTENTION", agentVersion: "1" });
    expect(calls).toEqual(["1"]); // version 2 never decided anything for this run
    expect((await t.store.listEvents(run.id)).find((e) => e.type === "agent.version_changed")?.data).toEqual({ pinned: "1", loaded: "2" });
    expect((await t.runtime.recoveryView(run.id)).safeNext).toEqual([expect.objectContaining({ action: "ask_human", description: expect.stringMatching(/version 1 .* version 2/) })]);

    await t.runtime.upgradeRun({ runId: run.id, by: "ops@example.com" });
    await drain();
    const done = await t.runtime.getRun(run.id);
    expect(done).toMatchObject({ status: "COMPLETED", agentVersion: "2", state: { agent: { version: "2" }, output: { finishedBy: "2", instructions: "Version 2: wait for go, then complete." } } });
    expect((await t.store.listEvents(run.id)).find((e) => e.type === "run.upgraded")?.data).toMatchObject({ by: "ops@example.com", from: "1", to: "2" });
    await expectError(t.runtime.upgradeRun({ runId: run.id, by: "ops@example.com" }), "CONFLICT");
  });

  it("a run on the deployed version cannot be upgraded, and a running one is not touched", async () => {
    const slug = uid("current");
    t.runtime.context.agents.set(slug, version(slug, "1", []));
    const { run } = await t.runtime.startRun({ agent: slug, input: {} });
    await expectError(t.runtime.upgradeRun({ runId: run.id, by: "ops@example.com" }), "CONFLICT");
    expect((await t.runtime.getRun(run.id)).status).toBe("QUEUED");
  });
});
