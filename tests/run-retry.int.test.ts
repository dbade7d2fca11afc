import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { isAppError, latestFact, ToolError, type AgentDefinition, type ToolDefinition } from "../lib/runtime";
import { scriptedAgent } from "./support/agents";
import { createTestRuntime, grant, providers, uid } from "./support/runtime";

// retryRun: a FAILED run becomes runnable again from its last checkpoint, once, with a run.retried event.

async function expectCode(promise: Promise<unknown>, code: string) {
  const error = await promise.then(
    () => null,
    (e) => e,
  );
  expect(isAppError(error) && error.code).toBe(code);
}

/** Fails its second step the first time it is asked, then completes: a transient policy failure. */
function flakyAgent(slug: string): AgentDefinition {
  let hasFailed = false;
  return scriptedAgent(
    slug,
    [],
    [
      { kind: "record", facts: [{ key: "seen", value: 1 }] },
      () => {
        if (hasFailed) return { kind: "complete", output: { retried: true } };
        hasFailed = true;
        return { kind: "fail", reason: "the model provider was down" };
      },
    ],
  );
}

/** A provider that can be down: reads fail with 503 while `isDown`. */
function statusTool(name: string) {
  const provider = { isDown: true, reads: 0 };
  const tool: ToolDefinition = {
    name,
    description: "reads the provider's status",
    capability: "read",
    semantics: "pure-read",
    input: z.object({}),
    impact: () => "reads the status",
    async run() {
      provider.reads++;
      if (provider.isDown) throw new ToolError("server", "HTTP 503 unavailable");
      return { ok: true };
    },
  };
  return { tool, provider };
}

/** Deterministic, like the demo agents: it fails when its last observation is the read's error. */
function readOrFailAgent(slug: string, tool: string): AgentDefinition {
  return {
    slug,
    version: "1",
    name: slug,
    description: "reads a status or gives up",
    instructions: "Read the status.",
    input: z.unknown(),
    tools: [tool],
    policy: {
      async decide({ state }) {
        const last = state.observations.at(-1);
        if (latestFact(state, "status"))
          return { decision: { kind: "complete", output: { status: latestFact(state, "status")!.value } } };
        if (last?.kind === "tool_error" && last.tool === tool)
          return { decision: { kind: "fail", reason: `Could not read the status: ${last.message}` } };
        return { decision: { kind: "call", tool, args: {}, resultKey: "status", evidence: [] } };
      },
    },
  };
}

describe.each(providers())("retryRun [%s]", (_provider, url) => {
  let t: ReturnType<typeof createTestRuntime>;
  beforeAll(() => {
    t = createTestRuntime(url);
  });
  afterAll(async () => {
    await t.close();
  });

  const register = (agent: AgentDefinition) => {
    t.runtime.context.agents.set(agent.slug, agent);
    return agent;
  };
  const drain = () => t.runtime.createWorker().drain();

  it("a failed run resumes from its last checkpoint and completes; the trace says who retried it", async () => {
    const agent = register(flakyAgent(uid("flaky")));
    const { run } = await t.runtime.startRun({ agent: agent.slug, input: {} });
    await drain();
    const failed = await t.runtime.getRun(run.id);
    expect(failed).toMatchObject({ status: "FAILED", error: "the model provider was down" });
    expect(failed.state.step).toBe(1);

    const retried = await t.runtime.retryRun({ runId: run.id, by: "ops@example.com", reason: "provider is back" });
    expect(retried).toMatchObject({ status: "QUEUED", error: null });
    expect(retried.state.step).toBe(1); // the fact recorded in step 0 is kept, step 0 is not redone
    expect(retried.state.facts.map((f) => f.key)).toEqual(["seen"]);

    const events = await t.store.listEvents(run.id);
    const retryEvent = events.find((e) => e.type === "run.retried");
    expect(retryEvent?.data).toMatchObject({
      by: "ops@example.com",
      reason: "provider is back",
      previousError: "the model provider was down",
      fromCheckpointSeq: failed.stateSeq,
    });
    const checkpoints = await t.store.listCheckpoints(run.id);
    expect(checkpoints.at(-1)).toMatchObject({ seq: retried.stateSeq, step: 1 });

    await drain();
    const done = await t.runtime.getRun(run.id);
    expect(done).toMatchObject({ status: "COMPLETED", state: { output: { retried: true } } });
    // Step 0 ran once: one record decision before the retry, none after it.
    const afterRetry = (await t.store.listEvents(run.id)).filter((e) => e.seq > retryEvent!.seq);
    expect(afterRetry.filter((e) => e.type === "model.decision").map((e) => e.step)).toEqual([1]);
  });

  it("a deterministic agent that failed on a tool error reads again after the retry: the retry is the newest observation", async () => {
    const { tool, provider } = statusTool(`status.get.${uid("t")}`);
    t.runtime.context.tools.set(tool.name, tool);
    const agent = register(readOrFailAgent(uid("read-or-fail"), tool.name));
    await grant(t.runtime, agent);
    const { run } = await t.runtime.startRun({ agent: agent.slug, input: {} });
    await drain();
    expect(await t.runtime.getRun(run.id)).toMatchObject({
      status: "FAILED",
      error: expect.stringMatching(/^Could not read the status: .*503/),
    });

    provider.isDown = false;
    const retried = await t.runtime.retryRun({ runId: run.id, by: "ops@example.com", reason: "provider is back" });
    expect(retried.state.observations.at(-1)).toMatchObject({
      kind: "retried",
      message: expect.stringMatching(
        /^ops@example\.com retried the run after it failed: Could not read the status.*\(provider is back\)$/,
      ),
    });
    const readsBefore = provider.reads;
    await drain();
    expect(await t.runtime.getRun(run.id)).toMatchObject({
      status: "COMPLETED",
      state: { output: { status: { ok: true } } },
    });
    expect(provider.reads).toBe(readsBefore + 1);
  });

  it("a failed run with a call in doubt is not retried: a person settles the call first", async () => {
    const agent = register(flakyAgent(uid("in-doubt")));
    const { run } = await t.runtime.startRun({ agent: agent.slug, input: {} });
    // A worker recorded the intent of a refund, then the run failed before the call's outcome was known.
    const claim = (await t.store.claimRun({ owner: "worker-test", now: new Date(), leaseMs: 30_000, runId: run.id }))!;
    const operationId = `op_${uid("refund")}`;
    await t.store.commitStep({
      lease: claim.lease,
      status: "RUNNING",
      state: claim.run.state,
      storedEntries: claim.run.storedEntries,
      events: [],
      createIntent: {
        id: operationId,
        runId: run.id,
        step: 0,
        tool: "payments.refund",
        args: { orderId: "o-1" },
        semantics: "unsafe",
        decision: {},
      },
    });
    await t.store.transitionRun({
      runId: run.id,
      from: ["RUNNING"],
      to: "FAILED",
      revokeLease: true,
      error: "unreadable state",
      events: [],
    });

    const error = await t.runtime.retryRun({ runId: run.id, by: "ops@example.com" }).then(
      () => null,
      (e) => e,
    );
    expect(isAppError(error, "CALLS_IN_DOUBT")).toBe(true);
    expect(error.userMessage).toContain(`payments.refund (operation ${operationId}) may have happened`);
    expect(await t.runtime.getRun(run.id)).toMatchObject({ status: "FAILED", error: "unreadable state" });
    expect((await t.store.listEvents(run.id)).some((e) => e.type === "run.retried")).toBe(false);
  });

  it("only a FAILED run can be retried, and only once", async () => {
    const agent = register(flakyAgent(uid("flaky")));
    const { run } = await t.runtime.startRun({ agent: agent.slug, input: {} });
    await expectCode(t.runtime.retryRun({ runId: run.id, by: "ops@example.com" }), "RUN_NOT_WAITING"); // QUEUED
    await drain();
    const retries = await Promise.allSettled([
      t.runtime.retryRun({ runId: run.id, by: "a@example.com" }),
      t.runtime.retryRun({ runId: run.id, by: "b@example.com" }),
    ]);
    expect(retries.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    const events = await t.store.listEvents(run.id);
    expect(events.filter((e) => e.type === "run.retried")).toHaveLength(1);
    await expectCode(t.runtime.retryRun({ runId: "run_missing", by: "ops@example.com" }), "NOT_FOUND");
  });
});
