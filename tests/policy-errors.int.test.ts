import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import type { AgentDefinition } from "../lib/runtime";
import { createTestRuntime, manualClock, providers, uid } from "./support/runtime";

// A policy that throws (a model provider down after its SDK's own retries) does not fail the run: the
// run sleeps and asks again, backing off, and after maxPolicyAttempts in a row it waits for a person
// (NEEDS_ATTENTION, nothing in doubt); resuming it gives the policy a fresh set of attempts.

describe.each(providers())("policy errors [%s]", (_provider, url) => {
  const clock = manualClock();
  let t: ReturnType<typeof createTestRuntime>;
  beforeAll(() => {
    t = createTestRuntime(url, { clock, maxPolicyAttempts: 3, policyRetryBaseMs: 1000 });
  });
  afterAll(async () => {
    await t.close();
  });
  const drain = () => t.runtime.createWorker().drain();

  /** A run of an agent whose policy throws while `down()` says so, then completes. */
  async function startFlaky(down: () => boolean) {
    let calls = 0;
    const agent: AgentDefinition = {
      slug: uid("flaky"),
      version: "1",
      name: "flaky",
      description: "its model provider is down sometimes",
      instructions: "Complete.",
      input: z.unknown(),
      tools: [],
      policy: {
        async decide() {
          calls++;
          if (down()) throw new Error("the model provider answered 503 after 2 retries");
          return { decision: { kind: "complete", output: { done: true } } };
        },
      },
    };
    t.runtime.context.agents.set(agent.slug, agent);
    const { run } = await t.runtime.startRun({ agent: agent.slug, input: {} });
    return { runId: run.id, calls: () => calls };
  }

  it("sleeps and asks again with a growing wait; the run completes once the policy answers", async () => {
    let failuresLeft = 2;
    const { runId } = await startFlaky(() => failuresLeft-- > 0);
    await drain();
    let run = await t.runtime.getRun(runId);
    expect(run).toMatchObject({ status: "SLEEPING" });
    expect(run.wakeAt!.getTime() - clock.now().getTime()).toBe(1000);
    expect(run.state.policyFailures).toBe(1);

    clock.advance(1000);
    await drain();
    run = await t.runtime.getRun(runId);
    expect(run.status).toBe("SLEEPING");
    expect(run.wakeAt!.getTime() - clock.now().getTime()).toBe(2000);

    clock.advance(2000);
    await drain();
    run = await t.runtime.getRun(runId);
    expect(run).toMatchObject({ status: "COMPLETED", state: { output: { done: true }, policyFailures: 0 } });
    const errors = (await t.store.listEvents(runId))
      .filter((e) => e.type === "policy.error")
      .map((e) => e.data.attempt);
    expect(errors).toEqual([1, 2]);
  });

  it("after maxPolicyAttempts in a row it waits for a person, who resumes it with fresh attempts", async () => {
    let down = true;
    const { runId, calls } = await startFlaky(() => down);
    for (const wait of [0, 1000, 2000]) {
      clock.advance(wait);
      await drain();
    }
    const parked = await t.runtime.getRun(runId);
    expect(parked).toMatchObject({ status: "NEEDS_ATTENTION", wakeAt: null, state: { policyFailures: 0 } });
    const view = await t.runtime.recoveryView(runId);
    expect(view.mayHaveHappened).toEqual([]);
    expect(view.safeNext).toEqual([
      expect.objectContaining({ action: "resume", description: expect.stringMatching(/policy kept failing .*503/) }),
    ]);
    expect(calls()).toBe(3);

    await drain(); // nobody resumed it: no worker asks the policy again
    expect(calls()).toBe(3);

    down = false;
    await t.runtime.resumeRun({ runId, by: "ops@example.com" });
    await drain();
    expect(await t.runtime.getRun(runId)).toMatchObject({ status: "COMPLETED", state: { output: { done: true } } });
  });
});
