import type { MockLanguageModelV2 } from "ai/test";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createModelPolicy } from "../lib/agents/model-policy";
import { liveFeedOf, type TokenChunk } from "../lib/live/live-feed";
import type { AgentDefinition, ToolDefinition } from "../lib/runtime";
import { createTestRuntime, grant, providers, uid } from "./support/runtime";
import { streamingModel } from "./support/streaming-model";

// Token streaming through the real engine: with the live feed as its token sink, the model policy calls the
// AI SDK's mock model with streamText, and each step's text and tool-call arguments reach the run's listeners
// in several chunks while the step runs; the committed steps are the ones the same answers make without
// streaming (decision, usage, raw answer), and nothing streamed is stored.

describe.each(providers())("model tokens streamed live [%s]", (_provider, url) => {
  const tools: ToolDefinition[] = [
    {
      name: "notes.read",
      description: "Read a note",
      capability: "read",
      semantics: "pure-read",
      input: z.object({ noteId: z.string().min(1) }),
      impact: ({ noteId }: { noteId: string }) => `reads note ${noteId}`,
      run: async ({ noteId }: { noteId: string }) => ({ noteId, text: "Ship on Friday." }),
    },
  ];
  let t: ReturnType<typeof createTestRuntime>;
  beforeAll(() => {
    t = createTestRuntime(url, { tools });
  });
  afterAll(() => t.close());

  async function run(model: MockLanguageModelV2, opts: { streamed: boolean }) {
    const agent: AgentDefinition = {
      slug: uid("stream"),
      version: "1",
      name: "Reader",
      description: "Reads a note",
      instructions: "Read the note, then complete.",
      input: z.object({ noteId: z.string() }),
      tools: ["notes.read"],
      policy: createModelPolicy({ model, tools, ...(opts.streamed ? { tokens: liveFeedOf(t.db) } : {}) }),
    };
    t.runtime.context.agents.set(agent.slug, agent);
    await grant(t.runtime, agent);
    const runId = (await t.runtime.startRun({ agent: agent.slug, input: { noteId: "n-1" } })).run.id;
    const heard: TokenChunk[] = [];
    const off = liveFeedOf(t.db).onRun(runId, (news) => {
      if (news.kind === "tokens") heard.push(news.chunk);
    });
    await t.runtime.createWorker().runOnce({ runId });
    off();
    const events = await t.store.listEvents(runId);
    return { runId, heard, events, run: await t.runtime.getRun(runId) };
  }

  it("publishes each step's text and tool arguments in chunks while it runs; the committed steps are the unstreamed ones", async () => {
    const streamedModel = streamingModel();
    const streamed = await run(streamedModel, { streamed: true });
    expect(streamed.run.status).toBe("COMPLETED");
    expect(streamedModel.doStreamCalls).toHaveLength(2);
    expect(streamedModel.doGenerateCalls).toHaveLength(0);

    const decisions = streamed.events.filter((e) => e.type === "model.decision");
    expect(decisions).toHaveLength(2);
    for (const decision of decisions) {
      const step = decision.step;
      const ofStep = streamed.heard.filter((c) => c.step === step);
      const text = ofStep.filter((c) => c.kind === "text");
      const args = ofStep.filter((c) => c.kind === "tool");
      expect(text.length).toBeGreaterThan(1); // in chunks, not the whole answer at once
      expect(args.length).toBeGreaterThan(1);
      expect(text.map((c) => c.delta).join("")).toBe((decision.data.raw as { text: string }).text);
      const toolCall = (decision.data.raw as { toolCall: { name: string; input: unknown } }).toolCall;
      expect(args.every((c) => c.name === toolCall.name)).toBe(true);
      expect(JSON.parse(args.map((c) => c.delta).join(""))).toEqual(toolCall.input);
      expect(ofStep.every((c) => c.attempt === 1)).toBe(true);
    }

    // The same answers without a sink: generateText, and the same committed steps.
    const plainModel = streamingModel();
    const plain = await run(plainModel, { streamed: false });
    expect(plainModel.doGenerateCalls).toHaveLength(2);
    expect(plainModel.doStreamCalls).toHaveLength(0);
    expect(plain.heard).toEqual([]);
    // (not the input digest: the two agents' slugs differ, and the digest covers the agent)
    const committed = (events: typeof plain.events) =>
      events
        .filter((e) => e.type === "model.decision")
        .map((e) => ({ step: e.step, decision: e.data.decision, usage: e.data.usage, raw: e.data.raw }));
    expect(committed(streamed.events)).toEqual(committed(plain.events));
    expect(streamed.events.map((e) => e.type)).toEqual(plain.events.map((e) => e.type));
    expect(streamed.run.state.usage).toEqual(plain.run.state.usage);
  });

  it("a provider that cannot stream keeps generateText (stream: false) and publishes nothing", async () => {
    const model = streamingModel();
    const heard: TokenChunk[] = [];
    const agent: AgentDefinition = {
      slug: uid("nostream"),
      version: "1",
      name: "Reader",
      description: "Reads a note",
      instructions: "Read the note, then complete.",
      input: z.object({ noteId: z.string() }),
      tools: ["notes.read"],
      policy: createModelPolicy({
        model,
        tools,
        tokens: { publishTokens: (_runId, chunk) => heard.push(chunk) },
        stream: false,
      }),
    };
    t.runtime.context.agents.set(agent.slug, agent);
    await grant(t.runtime, agent);
    const runId = (await t.runtime.startRun({ agent: agent.slug, input: { noteId: "n-1" } })).run.id;
    await t.runtime.createWorker().runOnce({ runId });
    expect((await t.runtime.getRun(runId)).status).toBe("COMPLETED");
    expect(model.doStreamCalls).toHaveLength(0);
    expect(heard).toEqual([]);
  });
});
