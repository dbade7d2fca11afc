import { MockLanguageModelV2 } from "ai/test";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createModelPolicy } from "../lib/agents/model-policy";
import type { AgentDefinition, ToolDefinition } from "../lib/runtime";
import { createTestRuntime, grant, manualClock, providers, uid } from "./support/runtime";

// The model policy driving a tiny agent through the real engine, with the AI SDK's mock model scripted
// across steps: usage and cost land in the run's state and trace, a bad call is fed back and corrected,
// and a resumed run never asks the model again for a step it already acted on.

type GenerateResult = Awaited<ReturnType<MockLanguageModelV2["doGenerate"]>>;
type CallOptions = MockLanguageModelV2["doGenerateCalls"][number];

const USAGE = { inputTokens: 500, outputTokens: 40 };
const PRICING = { inputPerMTok: 2, outputPerMTok: 8 };
const STEP_COST = (USAGE.inputTokens * PRICING.inputPerMTok + USAGE.outputTokens * PRICING.outputPerMTok) / 1e6;

const call = (toolName: string, input: unknown): GenerateResult => ({
  content: [{ type: "tool-call", toolCallId: uid("call"), toolName, input: JSON.stringify(input) }],
  finishReason: "tool-calls",
  usage: { ...USAGE, totalTokens: USAGE.inputTokens + USAGE.outputTokens },
  warnings: [],
});

function promptText(options: CallOptions): string {
  return options.prompt
    .map((m) =>
      typeof m.content === "string" ? m.content : m.content.map((p) => ("text" in p ? p.text : "")).join("\n"),
    )
    .join("\n");
}

/** The model's script: read the note (correcting a bad call), write the summary once, then complete. */
function scriptedModel(opts: { badFirstCall?: boolean } = {}) {
  return new MockLanguageModelV2({
    provider: "mock",
    modelId: "scripted",
    doGenerate: async (options) => {
      const prompt = promptText(options);
      const last = prompt.split("## LAST OBSERVATION")[1] ?? "";
      if (/- summary \[receipt/.test(prompt)) return call("complete", { output: { summarized: true } });
      if (/- note \[observation/.test(prompt))
        return call("notes_write", {
          args: { text: "summary of n-1" },
          reasoning: "the note was read",
          evidence: ["note"],
          resultKey: "summary",
        });
      if (opts.badFirstCall && !/tool_error notes_read/.test(last))
        return call("notes_read", { args: { noteId: 7 }, reasoning: "read the note", evidence: [] });
      return call("notes_read", {
        args: { noteId: "n-1" },
        reasoning: "read the note",
        evidence: [],
        resultKey: "note",
      });
    },
  });
}

describe.each(providers())("model policy through the engine [%s]", (_provider, url) => {
  const clock = manualClock();
  const writes = new Map<string, { id: string; text: string }>(); // idempotency key → the one effect
  let calls = { read: 0, write: 0 };
  const tools: ToolDefinition[] = [
    {
      name: "notes.read",
      description: "Read a note",
      capability: "read",
      semantics: "pure-read",
      input: z.object({ noteId: z.string().min(1) }),
      impact: ({ noteId }: { noteId: string }) => `reads note ${noteId}`,
      freshnessMs: 60_000,
      run: async ({ noteId }: { noteId: string }) => {
        calls.read++;
        return { noteId, text: "Ship on Friday." };
      },
    },
    {
      name: "notes.write",
      description: "Write a summary note",
      capability: "draft",
      semantics: "idempotent",
      input: z.object({ text: z.string().min(1) }),
      impact: ({ text }: { text: string }) => `writes "${text}"`,
      run: async ({ text }: { text: string }, ctx) => {
        calls.write++;
        if (!writes.has(ctx.idempotencyKey)) writes.set(ctx.idempotencyKey, { id: `note-${writes.size + 1}`, text });
        return writes.get(ctx.idempotencyKey)!;
      },
      receiptId: (r: { id: string }) => r.id,
    },
  ];
  let t: ReturnType<typeof createTestRuntime>;

  function modelAgent(slug: string, model: MockLanguageModelV2): AgentDefinition {
    return {
      slug,
      version: "1",
      name: "Summarizer",
      description: "Reads a note and writes its summary",
      instructions: "Read the note named in the input, write a one-line summary with notes.write, then complete.",
      input: z.object({ noteId: z.string() }),
      tools: ["notes.read", "notes.write"],
      policy: createModelPolicy({ model, tools, pricing: PRICING }),
    };
  }
  async function start(agent: AgentDefinition, runtime = t.runtime) {
    runtime.context.agents.set(agent.slug, agent);
    await grant(runtime, agent);
    return (await runtime.startRun({ agent: agent.slug, input: { noteId: "n-1" } })).run.id;
  }

  beforeAll(() => {
    t = createTestRuntime(url, { clock, tools });
  });
  afterAll(() => t.close());

  it("runs the agent to completion; the run's usage sums tokens and cost, each model.decision carries its usage", async () => {
    calls = { read: 0, write: 0 };
    const model = scriptedModel();
    const runId = await start(modelAgent(uid("model"), model));
    await t.runtime.createWorker().runOnce({ runId });

    const run = await t.runtime.getRun(runId);
    expect(run.status).toBe("COMPLETED");
    expect(run.state.output).toEqual({ summarized: true });
    expect(Object.fromEntries(run.state.facts.map((f) => [f.key, f.kind]))).toEqual({
      note: "observation",
      summary: "receipt",
    });
    expect(model.doGenerateCalls).toHaveLength(3);
    expect(run.state.usage.modelCalls).toBe(3);
    expect(run.state.usage.inputTokens).toBe(3 * USAGE.inputTokens);
    expect(run.state.usage.outputTokens).toBe(3 * USAGE.outputTokens);
    expect(run.state.usage.costUsd).toBeCloseTo(3 * STEP_COST, 12);

    const decisions = (await t.store.listEvents(runId)).filter((e) => e.type === "model.decision");
    expect(decisions.map((e) => (e.data.decision as { kind: string }).kind)).toEqual(["call", "call", "complete"]);
    for (const e of decisions) {
      expect(e.data.usage).toEqual({ ...USAGE, costUsd: STEP_COST });
      expect(e.data.raw).toMatchObject({ model: "mock:scripted", attempts: 1, toolCall: { name: expect.any(String) } });
    }
    expect(decisions[1].data.decision).toMatchObject({
      tool: "notes.write",
      args: { text: "summary of n-1" },
      evidence: ["note"],
      reasoning: "the note was read",
    });
  });

  it("arguments that fail the tool's schema come back as the last observation, and the model corrects its call", async () => {
    calls = { read: 0, write: 0 };
    const model = scriptedModel({ badFirstCall: true });
    const runId = await start(modelAgent(uid("model"), model));
    await t.runtime.createWorker().runOnce({ runId });

    const run = await t.runtime.getRun(runId);
    expect(run.status).toBe("COMPLETED");
    expect(model.doGenerateCalls).toHaveLength(4);
    expect(calls.read).toBe(1); // the bad call was never executed
    expect(promptText(model.doGenerateCalls[1])).toMatch(
      /LAST OBSERVATION[^\n]*\nstep 0: tool_error notes_read: arguments do not match notes\.read's schema — .*"noteId"/,
    );
    const rejected = (await t.store.listEvents(runId)).filter((e) => e.type === "tool.rejected");
    expect(rejected).toEqual([
      expect.objectContaining({ data: expect.objectContaining({ tool: "notes.read", code: "INVALID_ARGS" }) }),
    ]);
  });

  it("after a worker restart the model is not asked again for the steps already committed", async () => {
    const slug = uid("model");
    const first = scriptedModel();
    const runId = await start(modelAgent(slug, first));
    // One step (the model chose notes.read; the read and its fact are committed), then the worker is gone.
    await t.runtime.createWorker({ maxStepsPerClaim: 1 }).runOnce({ runId });
    expect(first.doGenerateCalls).toHaveLength(1);
    expect(await t.runtime.getRun(runId)).toMatchObject({
      status: "RUNNING",
      state: { step: 1, usage: { modelCalls: 1 } },
    });

    // A new process: new database client, new runtime, a fresh model that counts its calls.
    const second = scriptedModel();
    const restarted = createTestRuntime(url, { clock, tools, agents: [modelAgent(slug, second)] });
    try {
      await restarted.runtime.createWorker().runOnce({ runId });
      const run = await restarted.runtime.getRun(runId);
      expect(run.status).toBe("COMPLETED");
      // Two steps were left (write, complete): two calls, none for the committed read.
      expect(second.doGenerateCalls).toHaveLength(2);
      expect(promptText(second.doGenerateCalls[0])).toMatch(/- note \[observation; read by notes\.read/);
      expect(run.state.usage).toMatchObject({
        modelCalls: 3,
        inputTokens: 3 * USAGE.inputTokens,
        outputTokens: 3 * USAGE.outputTokens,
      });
      expect((await restarted.store.listEvents(runId)).filter((e) => e.type === "model.decision")).toHaveLength(3);
    } finally {
      await restarted.close();
    }
  });

  it("a worker that dies after an effect was applied: the next one finishes it from the recorded intent, without asking the model", async () => {
    calls = { read: 0, write: 0 };
    const effectsBefore = writes.size;
    const slug = uid("model");
    const first = scriptedModel();
    const crashing = createTestRuntime(url, {
      clock,
      tools,
      agents: [modelAgent(slug, first)],
      onFaultPoint: (point, info) => {
        if (point === "after-call" && info.tool === "notes.write") throw new Error("worker died");
      },
    });
    let runId: string;
    try {
      runId = await start(modelAgent(slug, first), crashing.runtime);
      await crashing.runtime.createWorker({ leaseMs: 1_000 }).runOnce({ runId });
      expect(first.doGenerateCalls).toHaveLength(2); // read, then write — applied, never committed
      expect(calls.write).toBe(1);
      expect((await t.store.listIntents(runId)).map((i) => i.status)).toEqual(["PENDING"]);
    } finally {
      await crashing.close();
    }

    clock.advance(1_500); // the dead worker's lease expires
    const second = scriptedModel();
    t.runtime.context.agents.set(slug, modelAgent(slug, second));
    await t.runtime.createWorker().runOnce({ runId });

    const run = await t.runtime.getRun(runId);
    expect(run.status).toBe("COMPLETED");
    expect(second.doGenerateCalls).toHaveLength(1); // only the final `complete`: the write came from the intent
    // Retried with the same idempotency key, so the world holds one effect.
    expect(calls.write).toBe(2);
    const intents = await t.store.listIntents(runId);
    expect(intents).toMatchObject([{ status: "SUCCEEDED", tool: "notes.write" }]);
    expect(writes.size - effectsBefore).toBe(1);
    expect(writes.has(intents[0].id)).toBe(true);
    expect(run.state.facts.find((f) => f.key === "summary")).toMatchObject({
      kind: "receipt",
      source: { receiptId: writes.get(intents[0].id)!.id },
    });
    expect(run.state.usage.modelCalls).toBe(3);
  });
});
