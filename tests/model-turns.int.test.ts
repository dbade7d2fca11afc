import { MockLanguageModelV2 } from "ai/test";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createModelPolicy } from "../lib/agents/model-policy";
import type { AgentDefinition, RunState, ToolDefinition } from "../lib/runtime";
import { createTestRuntime, grant, manualClock, providers, uid } from "./support/runtime";

// A model turn with several tool calls, a fork that replays its source's model answers
// (docs/design.md), and what the model may not choose (docs/security.md), through the real engine on both databases,
// with the AI SDK's mock model scripted from the prompt it is sent.

type GenerateResult = Awaited<ReturnType<MockLanguageModelV2["doGenerate"]>>;
type CallOptions = MockLanguageModelV2["doGenerateCalls"][number];
type Call = [fn: string, input: Record<string, unknown>];

/** One reply of the model: its tool calls, in order. */
const reply = (...calls: Call[]): GenerateResult => ({
  content: calls.map(([toolName, input]) => ({
    type: "tool-call" as const,
    toolCallId: uid("call"),
    toolName,
    input: JSON.stringify(input),
  })),
  finishReason: "tool-calls",
  usage: { inputTokens: 100, outputTokens: 10, totalTokens: 110 },
  warnings: [],
});

function promptText(options: CallOptions): string {
  return options.prompt
    .map((m) =>
      typeof m.content === "string" ? m.content : m.content.map((p) => ("text" in p ? p.text : "")).join("\n"),
    )
    .join("\n");
}
const lastObservation = (prompt: string) => prompt.split("## LAST OBSERVATION")[1] ?? "";

/** A model that answers from the prompt; it counts its calls (doGenerateCalls). */
const scripted = (answer: (prompt: string) => GenerateResult) =>
  new MockLanguageModelV2({
    provider: "mock",
    modelId: "turns",
    doGenerate: async (options) => answer(promptText(options)),
  });

const READ: Call = ["notes_read", { args: { noteId: "n-1" }, reasoning: "read it", evidence: [], resultKey: "note" }];
const WRITE: Call = [
  "notes_write",
  { args: { text: "summary" }, reasoning: "write it", evidence: [], resultKey: "summary" },
];
const PUBLISH: Call = [
  "notes_publish",
  { args: { noteId: "n-1" }, reasoning: "publish it", evidence: [], resultKey: "published" },
];
const COMPLETE: Call = ["complete", { output: { done: true } }];

/** Read, write and publish in one turn; complete once published; give up once told the turn was dropped. */
const threeCalls = (prompt: string) => {
  if (/turn_dropped/.test(lastObservation(prompt))) return reply(["fail", { reason: "the turn was dropped" }]);
  if (/- published \[receipt/.test(prompt)) return reply(COMPLETE);
  return reply(READ, WRITE, PUBLISH);
};

describe.each(providers())("model turns through the engine [%s]", (_provider, url) => {
  const clock = manualClock();
  const effects = new Map<string, { tool: string; value: unknown }>(); // idempotency key → the one effect applied
  const calls = new Map<string, number>(); // tool → calls, however many keys
  let noteText = "Ship on Friday.";
  let publishVersion = 1;
  const effect = (tool: string, key: string, value: unknown) => {
    calls.set(tool, (calls.get(tool) ?? 0) + 1);
    if (!effects.has(key)) effects.set(key, { tool, value });
    return effects.get(key)!.value;
  };
  const tools: ToolDefinition[] = [
    {
      name: "notes.read",
      description: "Read a note",
      capability: "read",
      semantics: "pure-read",
      input: z.object({ noteId: z.string() }),
      impact: () => "reads a note",
      run: async ({ noteId }: { noteId: string }) => {
        calls.set("notes.read", (calls.get("notes.read") ?? 0) + 1);
        return { noteId, text: noteText };
      },
    },
    {
      name: "notes.write",
      description: "Write a summary",
      capability: "draft",
      semantics: "idempotent",
      input: z.object({ text: z.string() }),
      impact: ({ text }: { text: string }) => `writes "${text}"`,
      run: async ({ text }: { text: string }, ctx) => effect("notes.write", ctx.idempotencyKey, { text }),
    },
    {
      name: "notes.publish",
      description: "Publish a note",
      capability: "execute",
      semantics: "idempotent",
      input: z.object({ noteId: z.string() }),
      impact: ({ noteId }: { noteId: string }) => `publishes ${noteId}`,
      run: async ({ noteId }: { noteId: string }, ctx) =>
        effect("notes.publish", ctx.idempotencyKey, { noteId, version: publishVersion }),
    },
  ];
  let t: ReturnType<typeof createTestRuntime>;

  function modelAgent(
    model: MockLanguageModelV2,
    opts: { slug?: string; plan?: RunState["plan"] } = {},
  ): AgentDefinition {
    return {
      slug: opts.slug ?? uid("turns"),
      version: "1",
      name: "Publisher",
      description: "Reads, summarizes and publishes a note",
      instructions: "Read the note, write its summary, publish it, then complete.",
      input: z.object({ noteId: z.string() }),
      tools: ["notes.read", "notes.write", "notes.publish"],
      plan: opts.plan,
      policy: createModelPolicy({ model, tools }),
    };
  }
  async function start(
    agent: AgentDefinition,
    overrides: Record<string, Record<string, unknown>> = {},
    runtime = t.runtime,
  ) {
    runtime.context.agents.set(agent.slug, agent);
    await grant(runtime, agent, overrides);
    return (await runtime.startRun({ agent: agent.slug, input: { noteId: "n-1" } })).run.id;
  }
  const eventsOf = async (runId: string, type: string) =>
    (await t.store.listEvents(runId)).filter((e) => e.type === type);
  const intentsOf = (runId: string) => t.store.listIntents(runId);

  beforeAll(() => {
    t = createTestRuntime(url, { clock, tools });
  });
  afterAll(() => t.close());

  it("three calls in one turn: one model call, each call its own step, intent, key and receipt; the trace shows the turn", async () => {
    const model = scripted(threeCalls);
    const runId = await start(modelAgent(model));
    await t.runtime.createWorker().runOnce({ runId });

    const run = await t.runtime.getRun(runId);
    expect(run.status).toBe("COMPLETED");
    expect(model.doGenerateCalls).toHaveLength(2); // the turn, then `complete`
    expect(run.state.usage.modelCalls).toBe(2);
    expect(run.state.turn).toBeNull();
    expect(run.state.facts.map((f) => [f.key, f.kind, f.step])).toEqual([
      ["note", "observation", 0],
      ["summary", "receipt", 1],
      ["published", "receipt", 2],
    ]);

    const intents = await intentsOf(runId);
    expect(intents.map((i) => [i.tool, i.step, i.status])).toEqual([
      ["notes.write", 1, "SUCCEEDED"],
      ["notes.publish", 2, "SUCCEEDED"],
    ]);
    expect(new Set(intents.map((i) => i.id)).size).toBe(2);
    for (const intent of intents) expect(effects.get(intent.id)).toMatchObject({ tool: intent.tool }); // each applied under its own key

    const [turn] = await eventsOf(runId, "model.decision");
    expect(turn).toMatchObject({
      step: 0,
      data: { decision: { tool: "notes.read" }, queued: [{ tool: "notes.write" }, { tool: "notes.publish" }] },
    });
    const next = await eventsOf(runId, "model.turn_next");
    expect(next.map((e) => [e.step, e.data.turn])).toEqual([
      [1, { askedAt: 0, call: 2, of: 3 }],
      [2, { askedAt: 0, call: 3, of: 3 }],
    ]);
    // Each call of the turn went through the permission check at its own step.
    expect((await eventsOf(runId, "permission.checked")).map((e) => [e.step, e.data.tool])).toEqual([
      [0, "notes.read"],
      [1, "notes.write"],
      [2, "notes.publish"],
    ]);
  });

  it("a worker that dies between the calls of a turn: the next one does not ask the model for them, nor repeat the first effect", async () => {
    calls.clear();
    const slug = uid("turns");
    const first = scripted(threeCalls);
    const crashing = createTestRuntime(url, {
      clock,
      tools,
      agents: [modelAgent(first, { slug })],
      onFaultPoint: (point, info) => {
        if (point === "after-call" && info.tool === "notes.write") throw new Error("worker died");
      },
    });
    let runId: string;
    try {
      runId = await start(modelAgent(first, { slug }), {}, crashing.runtime);
      await crashing.runtime.createWorker({ leaseMs: 1_000 }).runOnce({ runId });
      expect(first.doGenerateCalls).toHaveLength(1);
      expect(calls.get("notes.write")).toBe(1); // applied, never committed
      const orphan = await t.runtime.getRun(runId);
      expect(orphan.state.turn).toMatchObject({ step: 0, queued: [{ tool: "notes.publish" }] }); // committed with the intent
    } finally {
      await crashing.close();
    }

    clock.advance(1_500); // the dead worker's lease expires
    const second = scripted(threeCalls);
    t.runtime.context.agents.set(slug, modelAgent(second, { slug }));
    await t.runtime.createWorker().runOnce({ runId });

    const run = await t.runtime.getRun(runId);
    expect(run.status).toBe("COMPLETED");
    expect(second.doGenerateCalls).toHaveLength(1); // only `complete`: the write came from its intent, the publish from the turn
    const intents = await intentsOf(runId);
    expect(intents.map((i) => [i.tool, i.status])).toEqual([
      ["notes.write", "SUCCEEDED"],
      ["notes.publish", "SUCCEEDED"],
    ]);
    expect(calls.get("notes.write")).toBe(2); // retried with the same key: one effect in the world
    expect(intents.filter((i) => effects.has(i.id))).toHaveLength(2);
    expect(calls.get("notes.publish")).toBe(1);
  });

  it("a gated call of the turn waits for approval, then runs from the turn without asking the model", async () => {
    const model = scripted(threeCalls);
    const runId = await start(modelAgent(model), { "notes.publish": { effect: "require_approval" } });
    await t.runtime.createWorker().runOnce({ runId });
    expect(await t.runtime.getRun(runId)).toMatchObject({ status: "WAITING_APPROVAL", state: { step: 2 } });
    const [packet] = await t.store.findPackets({ runId, status: ["PENDING"] });
    expect(packet).toMatchObject({ tool: "notes.publish", step: 2 });
    expect(model.doGenerateCalls).toHaveLength(1);

    await t.runtime.decidePacket({ packetId: packet.id, reviewer: "rita@example.com", input: { decision: "approve" } });
    await t.runtime.createWorker().runOnce({ runId });
    const run = await t.runtime.getRun(runId);
    expect(run.status).toBe("COMPLETED");
    expect(model.doGenerateCalls).toHaveLength(2); // the turn, then `complete`
    expect((await intentsOf(runId)).map((i) => i.tool)).toEqual(["notes.write", "notes.publish"]);
  });

  it("a rejected first call drops the rest of the turn; the model is told so and decides again", async () => {
    const model = scripted((prompt) => {
      if (/turn_dropped/.test(lastObservation(prompt))) return reply(["fail", { reason: "not approved" }]);
      return reply(PUBLISH, WRITE);
    });
    const runId = await start(modelAgent(model), { "notes.publish": { effect: "require_approval" } });
    await t.runtime.createWorker().runOnce({ runId });
    const [packet] = await t.store.findPackets({ runId, status: ["PENDING"] });
    await t.runtime.decidePacket({
      packetId: packet.id,
      reviewer: "rita@example.com",
      input: { decision: "reject", reason: "not this week" },
    });
    await t.runtime.createWorker().runOnce({ runId });

    const run = await t.runtime.getRun(runId);
    expect(run).toMatchObject({ status: "FAILED", error: "not approved" });
    expect(await intentsOf(runId)).toEqual([]); // the write was never made
    expect(model.doGenerateCalls).toHaveLength(2);
    expect(lastObservation(promptText(model.doGenerateCalls[1]))).toMatch(
      /turn_dropped: The rest of the turn chosen at step 0 was not made \(notes\.write\): the call before did not succeed \(rejected of notes\.publish/,
    );
    expect(await eventsOf(runId, "model.turn_dropped")).toMatchObject([
      { data: { askedAt: 0, dropped: ["notes.write"] } },
    ]);
    expect(run.state.turn).toBeNull();
  });

  it("a fork replays its source's model answers while its state is the source's, and asks the model where it diverges", async () => {
    // One call a turn: read, write, publish, complete.
    const oneAtATime = (prompt: string) => {
      if (/- published \[receipt/.test(prompt)) return reply(COMPLETE);
      if (/- summary \[receipt/.test(prompt)) return reply(PUBLISH);
      if (/- note \[observation/.test(prompt)) return reply(WRITE);
      return reply(READ);
    };
    const source = scripted(oneAtATime);
    const slug = uid("fork");
    const sourceId = await start(modelAgent(source, { slug }));
    await t.runtime.createWorker().runOnce({ runId: sourceId });
    expect(await t.runtime.getRun(sourceId)).toMatchObject({ status: "COMPLETED" });
    expect(source.doGenerateCalls).toHaveLength(4);
    const afterRead = (await t.store.listCheckpoints(sourceId)).find(
      (c) => c.state.step === 1 && c.state.facts.length === 1,
    )!;

    // Same world: every decision after the checkpoint is replayed, the model is never asked.
    const replaying = scripted(oneAtATime);
    t.runtime.context.agents.set(slug, modelAgent(replaying, { slug }));
    const fork = await t.runtime.forkRun({ runId: sourceId, checkpointSeq: afterRead.seq });
    expect(fork.state.replay?.decisions.map((d) => d.step)).toEqual([1, 2, 3]);
    await t.runtime.createWorker().runOnce({ runId: fork.id });
    expect(await t.runtime.getRun(fork.id)).toMatchObject({
      status: "COMPLETED",
      state: { output: { done: true }, replay: null },
    });
    expect(replaying.doGenerateCalls).toHaveLength(0);
    expect((await eventsOf(fork.id, "model.replayed")).map((e) => [e.step, e.data.from])).toEqual([
      [1, sourceId],
      [2, sourceId],
      [3, sourceId],
    ]);
    expect((await intentsOf(fork.id)).map((i) => i.tool)).toEqual(["notes.write", "notes.publish"]); // the fork acts for itself

    // The world moved: the publish returns something else, so the state at step 3 is not the source's.
    publishVersion += 1;
    const diverging = scripted(oneAtATime);
    t.runtime.context.agents.set(slug, modelAgent(diverging, { slug }));
    const second = await t.runtime.forkRun({ runId: sourceId, checkpointSeq: afterRead.seq });
    await t.runtime.createWorker().runOnce({ runId: second.id });
    expect(await t.runtime.getRun(second.id)).toMatchObject({ status: "COMPLETED", state: { replay: null } });
    expect(diverging.doGenerateCalls).toHaveLength(1); // only at step 3, where the state differs
    expect((await eventsOf(second.id, "model.replayed")).map((e) => e.step)).toEqual([1, 2]);
    expect(await eventsOf(second.id, "model.replay_ended")).toMatchObject([
      { step: 3, data: { from: sourceId, why: "the state differs from the source's at this step" } },
    ]);
    expect((await eventsOf(second.id, "model.decision")).map((e) => e.step)).toEqual([3]);
  });

  it("a model-chosen resultKey naming another tool's fact does not overwrite it: the result is kept under the tool's key, and the model is told", async () => {
    noteText = "Ship on Friday.";
    const model = scripted((prompt) => {
      if (/- notes\.write \[receipt/.test(prompt)) return reply(COMPLETE);
      if (/- note \[observation/.test(prompt))
        return reply(["notes_write", { args: { text: "overwrite" }, reasoning: "w", evidence: [], resultKey: "note" }]);
      return reply(READ);
    });
    const runId = await start(modelAgent(model));
    await t.runtime.createWorker().runOnce({ runId });

    const run = await t.runtime.getRun(runId);
    expect(run.status).toBe("COMPLETED");
    expect(run.state.facts.filter((f) => f.key === "note")).toEqual([
      expect.objectContaining({ kind: "observation", value: { noteId: "n-1", text: "Ship on Friday." } }),
    ]);
    expect(run.state.facts.find((f) => f.key === "notes.write")).toMatchObject({
      kind: "receipt",
      value: { text: "overwrite" },
      source: { tool: "notes.write" },
    });
    const told = run.state.observations.find((o) => o.tool === "notes.write")!;
    expect(told).toMatchObject({ kind: "tool_result", data: { factKey: "notes.write", requestedKey: "note" } });
    expect(told.message).toMatch(/kept under "notes\.write", not "note": that key holds an observation of notes\.read/);
    expect(promptText(model.doGenerateCalls[2])).toMatch(
      /LAST OBSERVATION[^\n]*\nstep 1: tool_result notes_write: notes\.write succeeded; its result is kept under "notes\.write"/,
    );
  });

  it("the model cannot pick the plan step its permission row matches: the call serves the plan's active step", async () => {
    const model = scripted(() =>
      reply(["notes_publish", { args: { noteId: "n-1" }, reasoning: "p", evidence: [], planStep: "publish" }]),
    );
    const plan: RunState["plan"] = [
      { id: "draft", title: "Draft", status: "active" },
      { id: "publish", title: "Publish", status: "pending" },
    ];
    const agent = modelAgent(model, { plan });
    // Publishing is allowed without a person only at the plan's publish step.
    const runId = await start(agent, { "notes.publish": { effect: "require_approval" } });
    await t.runtime.permissions.put(
      { agent: agent.slug, tool: "notes.publish", step: "publish", effect: "allow" },
      { by: "admin@test" },
    );
    await t.runtime.createWorker().runOnce({ runId });

    expect(await t.runtime.getRun(runId)).toMatchObject({ status: "WAITING_APPROVAL" });
    const [decided] = await eventsOf(runId, "model.decision");
    expect(decided.data.decision).toMatchObject({ tool: "notes.publish", planStep: "draft" });
    expect(await intentsOf(runId)).toEqual([]);
  });
});
