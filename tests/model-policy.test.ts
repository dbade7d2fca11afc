import { MockLanguageModelV2 } from "ai/test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { loadConfig } from "../lib/config";
import { z } from "zod";
import { createModelPolicy } from "../lib/agents/model-policy";
import { modelFromEnv, pricingFromEnv } from "../lib/agents/model-provider";
import { initialState, type Fact, type Observation, type PolicyInput, type ToolDefinition } from "../lib/runtime";

// The model policy with the AI SDK's mock model: no network, no database.

type GenerateResult = Awaited<ReturnType<MockLanguageModelV2["doGenerate"]>>;
type CallOptions = MockLanguageModelV2["doGenerateCalls"][number];

const NOW = new Date("2030-01-01T12:00:00.000Z");
const ago = (ms: number) => new Date(NOW.getTime() - ms).toISOString();

const getOrder: ToolDefinition<{ orderId: string }> = {
  name: "orders.get",
  description: "Read an order",
  capability: "read",
  semantics: "pure-read",
  input: z.object({ orderId: z.string().min(1) }),
  impact: ({ orderId }) => `reads order ${orderId}`,
  run: async () => ({}),
};
const refund: ToolDefinition<{ orderId: string; amountCents: number }> = {
  name: "payments.refund",
  description: "Refund an order",
  capability: "execute",
  semantics: "idempotent",
  input: z.object({ orderId: z.string(), amountCents: z.number().int().positive() }),
  impact: ({ amountCents }) => `refunds ${amountCents}`,
  run: async () => ({}),
};
const tools = [getOrder, refund];

function toolCall(
  toolName: string,
  input: unknown,
  usage = { inputTokens: 100, outputTokens: 20 },
  text?: string,
): GenerateResult {
  return {
    content: [
      ...(text ? [{ type: "text" as const, text }] : []),
      { type: "tool-call", toolCallId: `call-${toolName}`, toolName, input: JSON.stringify(input) },
    ],
    finishReason: "tool-calls",
    usage: { ...usage, totalTokens: usage.inputTokens + usage.outputTokens },
    warnings: [],
  };
}
function textOnly(text: string, usage = { inputTokens: 80, outputTokens: 10 }): GenerateResult {
  return {
    content: [{ type: "text", text }],
    finishReason: "stop",
    usage: { ...usage, totalTokens: usage.inputTokens + usage.outputTokens },
    warnings: [],
  };
}

/** A mock model that answers with the given results in order (the last one repeats). */
function mockModel(...results: GenerateResult[]) {
  let i = 0;
  return new MockLanguageModelV2({
    provider: "mock",
    modelId: "mock-1",
    doGenerate: async () => results[Math.min(i++, results.length - 1)],
  });
}

function fact(partial: Partial<Fact> & Pick<Fact, "key" | "value" | "kind">): Fact {
  return { id: `fact-${partial.key}`, at: ago(60_000), step: 0, expiresAt: null, source: {}, ...partial };
}

function policyInput(
  opts: {
    facts?: Fact[];
    observations?: Observation[];
    instructions?: string[];
    plan?: PolicyInput["state"]["plan"];
  } = {},
): PolicyInput {
  const state = initialState({
    agent: { slug: "refund", version: "1", instructionsHash: "h" },
    instructions: "Refund the customer when the order allows it.",
    input: { orderId: "o-42", email: "ann@example.com" },
    plan: opts.plan,
  });
  state.step = 3;
  state.facts = opts.facts ?? [];
  state.observations = opts.observations ?? [];
  if (opts.instructions) state.instructions = opts.instructions;
  return {
    state,
    instructions: state.instructions,
    lastObservation: state.observations.at(-1),
    tools: tools.map(({ name, description, capability, semantics, input }) => ({
      name,
      description,
      capability,
      semantics,
      input,
    })),
    now: () => NOW,
    randomId: () => "rnd-1",
  };
}

/** The text the model was sent in one call: system prompt and messages. */
function promptText(call: CallOptions): string {
  return call.prompt
    .map((m) =>
      typeof m.content === "string" ? m.content : m.content.map((p) => ("text" in p ? p.text : "")).join("\n"),
    )
    .join("\n---\n");
}

describe("model policy", () => {
  it("maps the model's tool call to a call decision, with reasoning, evidence, usage and cost", async () => {
    const model = mockModel(
      toolCall(
        "payments_refund",
        {
          args: { orderId: "o-42", amountCents: 2400 },
          reasoning: "The order is paid and within the refund window.",
          evidence: ["order", "history"],
          uncertainty: "The customer may have been refunded by phone.",
          resultKey: "refund",
        },
        { inputTokens: 1200, outputTokens: 300 },
      ),
    );
    const policy = createModelPolicy({ model, tools, pricing: { inputPerMTok: 3, outputPerMTok: 15 } });

    const out = await policy.decide(policyInput());

    expect(out.decision).toEqual({
      kind: "call",
      tool: "payments.refund",
      args: { orderId: "o-42", amountCents: 2400 },
      reasoning: "The order is paid and within the refund window.",
      evidence: ["order", "history"],
      uncertainty: "The customer may have been refunded by phone.",
      resultKey: "refund",
    });
    expect(out.usage).toEqual({ inputTokens: 1200, outputTokens: 300, costUsd: (1200 * 3 + 300 * 15) / 1e6 });
    expect(out.raw).toMatchObject({ model: "mock:mock-1", attempts: 1, toolCall: { name: "payments_refund" } });

    // One model call, a tool call required, the agent's tools (schemas from zod) and the control tools offered.
    expect(model.doGenerateCalls).toHaveLength(1);
    const call = model.doGenerateCalls[0];
    expect(call.toolChoice).toEqual({ type: "required" });
    const offered = Object.fromEntries((call.tools ?? []).map((t) => [t.name, t]));
    expect(Object.keys(offered).sort()).toEqual([
      "complete",
      "fail",
      "orders_get",
      "payments_refund",
      "record",
      "sleep",
      "wait_event",
    ]);
    expect(offered.payments_refund).toMatchObject({
      type: "function",
      inputSchema: {
        properties: {
          args: {
            type: "object",
            properties: { orderId: { type: "string" }, amountCents: { type: "integer" } },
            required: ["orderId", "amountCents"],
          },
        },
      },
    });
    // Several calls a turn are allowed (the engine takes them one a step): providers are not asked to batch less.
    expect(call.providerOptions).toBeUndefined();
    const single = mockModel(toolCall("orders_get", { args: { orderId: "o-42" }, reasoning: "read", evidence: [] }));
    await createModelPolicy({ model: single, tools, parallelToolCalls: false }).decide(policyInput());
    expect(single.doGenerateCalls[0].providerOptions).toMatchObject({
      openai: { parallelToolCalls: false },
      anthropic: { disableParallelToolUse: true },
    });
  });

  it("an agent that may start child runs is offered spawn, with the agents it names and their input schemas", async () => {
    const reviewer = { slug: "reviewer", description: "Reviews a refund", input: z.object({ orderId: z.string() }) };
    const model = mockModel(
      toolCall("spawn", { agent: "reviewer", input: { orderId: "o-42" }, reason: "a second opinion" }),
    );
    const out = await createModelPolicy({ model, tools }).decide({ ...policyInput(), children: [reviewer] });
    expect(out.decision).toEqual({
      kind: "spawn",
      agent: "reviewer",
      input: { orderId: "o-42" },
      reason: "a second opinion",
    });
    const offered = model.doGenerateCalls[0].tools!.find((t) => t.name === "spawn") as unknown as {
      inputSchema: { properties: { agent: { enum: string[] }; input: { description: string } } };
    };
    expect(offered.inputSchema.properties.agent.enum).toEqual(["reviewer"]);
    expect(offered.inputSchema.properties.input.description).toContain('"orderId"');
    expect(promptText(model.doGenerateCalls[0])).toContain("- reviewer: Reviews a refund");

    // Without children it is not offered; like a control tool it may only be a turn's last call.
    const plain = mockModel(toolCall("orders_get", { args: { orderId: "o-42" }, reasoning: "read", evidence: [] }));
    await createModelPolicy({ model: plain, tools }).decide(policyInput());
    expect(plain.doGenerateCalls[0].tools!.map((t) => t.name)).not.toContain("spawn");
    const early = mockModel(
      {
        content: [
          {
            type: "tool-call",
            toolCallId: "a",
            toolName: "spawn",
            input: JSON.stringify({ agent: "reviewer", input: {}, reason: "r" }),
          },
          {
            type: "tool-call",
            toolCallId: "b",
            toolName: "orders_get",
            input: JSON.stringify({ args: { orderId: "o-42" }, reasoning: "read", evidence: [] }),
          },
        ],
        finishReason: "tool-calls",
        usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
        warnings: [],
      },
      toolCall("spawn", { agent: "reviewer", input: { orderId: "o-42" }, reason: "r" }),
    );
    const again = await createModelPolicy({ model: early, tools }).decide({ ...policyInput(), children: [reviewer] });
    expect(again.decision).toMatchObject({ kind: "spawn", agent: "reviewer" });
    expect(promptText(early.doGenerateCalls[1])).toMatch(/spawn before other tools in the same turn/);
  });

  it("several tool calls in one reply: the first is the decision, the rest queued in order; control tools only last", async () => {
    const reply = (...calls: Array<[string, unknown]>): GenerateResult => ({
      content: calls.map(([toolName, input], i) => ({
        type: "tool-call" as const,
        toolCallId: `call-${i}`,
        toolName,
        input: JSON.stringify(input),
      })),
      finishReason: "tool-calls",
      usage: { inputTokens: 100, outputTokens: 20, totalTokens: 120 },
      warnings: [],
    });
    const read = ["orders_get", { args: { orderId: "o-42" }, reasoning: "read", evidence: [] }] as [string, unknown];
    const pay = [
      "payments_refund",
      { args: { orderId: "o-42", amountCents: 100 }, reasoning: "refund", evidence: ["order"] },
    ] as [string, unknown];

    const model = mockModel(reply(read, pay, ["complete", { output: "done" }]));
    const out = await createModelPolicy({ model, tools }).decide(policyInput());
    expect(model.doGenerateCalls).toHaveLength(1);
    expect(out.decision).toMatchObject({ kind: "call", tool: "orders.get" });
    expect(out.queued).toEqual([
      expect.objectContaining({ kind: "call", tool: "payments.refund", args: { orderId: "o-42", amountCents: 100 } }),
      { kind: "complete", output: "done" },
    ]);
    expect(out.raw).toMatchObject({
      toolCall: { name: "orders_get" },
      toolCalls: [{ name: "orders_get" }, { name: "payments_refund" }, { name: "complete" }],
    });
    expect(out.raw).not.toHaveProperty("ignoredToolCalls");

    // A later call that cannot be used is dropped with what follows it; the usable ones before it stand.
    const partly = await createModelPolicy({ model: mockModel(reply(read, ["teleport", {}], pay)), tools }).decide(
      policyInput(),
    );
    expect(partly.decision).toMatchObject({ tool: "orders.get" });
    expect(partly.queued).toBeUndefined();
    expect(partly.raw).toMatchObject({
      droppedToolCalls: [
        { name: "teleport", problem: expect.stringMatching(/not one of the offered tools/) },
        { name: "payments_refund" },
      ],
    });

    // A control tool before another call: the reply is not usable, the model is asked again.
    const early = mockModel(reply(["complete", { output: "done" }], read), reply(read));
    const again = await createModelPolicy({ model: early, tools }).decide(policyInput());
    expect(early.doGenerateCalls).toHaveLength(2);
    expect(promptText(early.doGenerateCalls[1])).toMatch(
      /complete before other tools in the same turn; a control tool .* may only be the last call/,
    );
    expect(again.decision).toMatchObject({ tool: "orders.get" });
  });

  it("the plan step is the plan's active step, whatever the model sends; it is not offered to the model", async () => {
    const plan = [
      { id: "read", title: "Read", status: "done" as const },
      { id: "refund", title: "Refund", status: "active" as const },
    ];
    const model = mockModel(
      toolCall("payments_refund", {
        args: { orderId: "o-42", amountCents: 100 },
        reasoning: "r",
        evidence: [],
        planStep: "read",
      }),
    );
    const out = await createModelPolicy({ model, tools }).decide(policyInput({ plan }));
    expect(out.decision).toMatchObject({
      kind: "call",
      tool: "payments.refund",
      planStep: "refund",
      args: { orderId: "o-42", amountCents: 100 },
    });
    const offered = model.doGenerateCalls[0].tools!.find((t) => t.name === "payments_refund") as {
      inputSchema: { properties: Record<string, unknown> };
    };
    expect(Object.keys(offered.inputSchema.properties)).not.toContain("planStep");
    // No active step: no plan step at all (the rule for "*" applies).
    const none = await createModelPolicy({
      model: mockModel(
        toolCall("orders_get", { args: { orderId: "o-1" }, reasoning: "r", evidence: [], planStep: "refund" }),
      ),
      tools,
    }).decide(policyInput());
    expect(none.decision).not.toHaveProperty("planStep");
  });

  it("does not validate arguments (the engine does, and feeds the error back)", async () => {
    const policy = createModelPolicy({
      model: mockModel(toolCall("orders_get", { args: { orderId: 42 }, reasoning: "read it", evidence: [] })),
      tools,
    });
    const out = await policy.decide(policyInput());
    expect(out.decision).toMatchObject({ kind: "call", tool: "orders.get", args: { orderId: 42 } });
    expect(out.usage).toEqual({ inputTokens: 100, outputTokens: 20 }); // no pricing → no cost recorded
  });

  it("takes the model's text as the reasoning when the call carries none, and unwrapped arguments as args", async () => {
    const policy = createModelPolicy({
      model: mockModel(toolCall("orders_get", { orderId: "o-1" }, undefined, "I need the order first.")),
      tools,
    });
    const out = await policy.decide(policyInput());
    expect(out.decision).toEqual({
      kind: "call",
      tool: "orders.get",
      args: { orderId: "o-1" },
      evidence: [],
      reasoning: "I need the order first.",
    });
  });

  it("maps the control tools to their decisions", async () => {
    const cases: Array<[string, unknown, unknown]> = [
      [
        "complete",
        { output: { refunded: true, amountCents: 2400 } },
        { kind: "complete", output: { refunded: true, amountCents: 2400 } },
      ],
      [
        "wait_event",
        { eventType: "deploy.finished", timeoutMs: 3_600_000, reason: "the deploy reports back" },
        { kind: "wait_event", eventType: "deploy.finished", timeoutMs: 3_600_000, reason: "the deploy reports back" },
      ],
      ["wait_event", { eventType: "reply", timeoutMs: null }, { kind: "wait_event", eventType: "reply" }],
      [
        "sleep",
        { durationMs: 86_400_000, reason: "wait a day" },
        { kind: "sleep", durationMs: 86_400_000, reason: "wait a day" },
      ],
      ["fail", { reason: "the order does not exist" }, { kind: "fail", reason: "the order does not exist" }],
      [
        "record",
        { facts: [{ key: "eligible", value: true }], plan: [{ id: "read", status: "done" }], reason: "concluded" },
        {
          kind: "record",
          facts: [{ key: "eligible", value: true, kind: "inference" }],
          plan: [
            { id: "read", title: "Read the order", status: "done" },
            { id: "refund", title: "Refund", status: "pending" },
          ],
          reason: "concluded",
        },
      ],
    ];
    for (const [name, input, decision] of cases) {
      const policy = createModelPolicy({ model: mockModel(toolCall(name, input)), tools });
      const out = await policy.decide(
        policyInput({
          plan: [
            { id: "read", title: "Read the order", status: "active" },
            { id: "refund", title: "Refund", status: "pending" },
          ],
        }),
      );
      expect(out.decision, name).toEqual(decision);
    }
  });

  it("shows the model the instructions in force, the facts with their kind, authority and age, and the last observation", async () => {
    const model = mockModel(toolCall("orders_get", { args: { orderId: "o-42" }, reasoning: "re-read", evidence: [] }));
    const policy = createModelPolicy({ model, tools });
    await policy.decide(
      policyInput({
        instructions: [
          "Refund the customer when the order allows it.",
          "Refund only half: the customer kept one item.",
        ],
        facts: [
          fact({
            key: "order",
            value: { status: "delivered" },
            kind: "observation",
            at: ago(2 * 3_600_000),
            expiresAt: ago(3_600_000),
            source: { tool: "orders.get" },
          }),
          fact({
            key: "order",
            value: { status: "paid", amountCents: 4800 },
            kind: "observation",
            at: ago(120_000),
            expiresAt: ago(60_000),
            source: { tool: "orders.get" },
          }),
          fact({
            key: "history",
            value: { refunds: 0 },
            kind: "observation",
            at: ago(30_000),
            expiresAt: new Date(NOW.getTime() + 600_000).toISOString(),
            source: { tool: "orders.history" },
          }),
          fact({ key: "eligible", value: true, kind: "inference", step: 2 }),
          fact({ key: "approval", value: "approve", kind: "decision", source: { by: "lead@example.com" } }),
          fact({
            key: "charge",
            value: { id: "ch_1" },
            kind: "receipt",
            source: { tool: "payments.charge", receiptId: "ch_1" },
          }),
        ],
        observations: [
          {
            step: 1,
            kind: "tool_result",
            tool: "orders.get",
            message: "orders.get succeeded",
            data: { factKey: "order" },
          },
          {
            step: 2,
            kind: "rejected",
            tool: "payments.refund",
            message: "payments.refund was rejected: too much",
            data: { reason: "too much" },
          },
          {
            step: 2,
            kind: "tool_error",
            tool: "payments.refund",
            message: "arguments do not match payments.refund's schema",
            data: { code: "INVALID_ARGS", fieldErrors: { amountCents: ["Expected number, received string"] } },
          },
        ],
      }),
    );

    const text = promptText(model.doGenerateCalls[0]);
    // Instructions: the agent's and the person's redirect, marked as overriding.
    expect(text).toContain("Refund the customer when the order allows it.");
    expect(text).toMatch(/redirected this run[^\n]*override[\s\S]*1\. Refund only half/);
    // Input and facts, each with its kind; the newest value per key; stale vs fresh observations.
    expect(text).toContain('"orderId":"o-42"');
    expect(text).toMatch(
      /- order \[observation; read by orders\.get 2m ago; STALE since 1m ago: re-read before relying on it; replaces 1 earlier value\(s\)\] = \{"status":"paid","amountCents":4800\}/,
    );
    expect(text).not.toContain('"status":"delivered"');
    expect(text).toMatch(/- history \[observation; read by orders\.history 30s ago; fresh for 10m more\]/);
    expect(text).toMatch(/- eligible \[inference; unverified belief from step 2, 1m ago\] = true/);
    expect(text).toMatch(/- approval \[decision; decided by lead@example\.com 1m ago\] = "approve"/);
    expect(text).toMatch(/- charge \[receipt; confirmed by payments\.charge, receipt ch_1 1m ago\]/);
    expect(text).toContain("inference: the model believes it; unverified, never enough on its own");
    // What was turned down, and the last observation with the field errors to correct.
    expect(text).toMatch(/Turned down[\s\S]*rejected payments_refund: payments\.refund was rejected: too much/);
    expect(text).toMatch(
      /LAST OBSERVATION[^\n]*\nstep 2: tool_error payments_refund: arguments do not match payments\.refund's schema — \{"code":"INVALID_ARGS","fieldErrors":\{"amountCents":\["Expected number, received string"\]\}\}/,
    );
    expect(text).toContain("orders_get = orders.get (read, pure-read)");
  });

  it("retries once when the model calls no tool, then decides to fail; the tokens of both attempts count", async () => {
    const model = mockModel(textOnly("I think we should refund."), textOnly("Still thinking."));
    const policy = createModelPolicy({ model, tools, pricing: { inputPerMTok: 1, outputPerMTok: 2 } });
    const out = await policy.decide(policyInput());

    expect(out.decision).toEqual({ kind: "fail", reason: "the model did not choose an action" });
    expect(model.doGenerateCalls).toHaveLength(2);
    expect(promptText(model.doGenerateCalls[1])).toMatch(/previous reply could not be used: it called no tool/);
    expect(out.usage).toEqual({ inputTokens: 160, outputTokens: 20, costUsd: (160 * 1 + 20 * 2) / 1e6 });
    expect(out.raw).toMatchObject({
      attempts: 2,
      problems: [expect.stringMatching(/called no tool/), expect.stringMatching(/called no tool/)],
    });
  });

  it("a retry that brings a usable call is used; invalid control arguments or an unknown tool count as no choice", async () => {
    const model = mockModel(toolCall("sleep", { durationMs: "soon" }), toolCall("complete", { output: "done" }));
    const out = await createModelPolicy({ model, tools }).decide(policyInput());
    expect(out.decision).toEqual({ kind: "complete", output: "done" });
    expect(model.doGenerateCalls).toHaveLength(2);
    expect(promptText(model.doGenerateCalls[1])).toMatch(/arguments of sleep are invalid \(durationMs: /);
    expect(out.usage).toEqual({ inputTokens: 200, outputTokens: 40 });

    const unknown = mockModel(toolCall("teleport", {}));
    const failed = await createModelPolicy({ model: unknown, tools, retries: 0 }).decide(policyInput());
    expect(failed.decision).toEqual({ kind: "fail", reason: "the model did not choose an action" });
    expect(unknown.doGenerateCalls).toHaveLength(1);
    expect(failed.raw).toMatchObject({
      problems: [expect.stringMatching(/called "teleport", which is not one of the offered tools/)],
    });
  });

  it("a model that cannot be called throws a clear error (the engine fails the run with it)", async () => {
    const model = new MockLanguageModelV2({
      provider: "mock",
      modelId: "down",
      doGenerate: async () => {
        throw new Error("connection refused");
      },
    });
    await expect(createModelPolicy({ model, tools, maxRetries: 0 }).decide(policyInput())).rejects.toThrow(
      /the model mock:down could not be called: connection refused/,
    );
  });
});

describe("modelFromEnv", () => {
  afterEach(() => vi.unstubAllGlobals());

  it("is null without TETHER_MODEL (scripted policies)", () => {
    expect(modelFromEnv(loadConfig({}))).toBeNull();
    expect(modelFromEnv(loadConfig({ TETHER_MODEL: " " }))).toBeNull();
  });

  it("builds an OpenAI chat-completions model, or an Anthropic one", () => {
    expect(modelFromEnv(loadConfig({ TETHER_MODEL: "openai:gpt-4.1-mini", OPENAI_API_KEY: "sk-test" }))).toMatchObject({
      provider: "openai.chat",
      modelId: "gpt-4.1-mini",
    });
    expect(
      modelFromEnv(loadConfig({ TETHER_MODEL: "anthropic:claude-sonnet-4-5", ANTHROPIC_API_KEY: "key" })),
    ).toMatchObject({ provider: "anthropic.messages", modelId: "claude-sonnet-4-5" });
    // A self-hosted OpenAI-compatible endpoint may need no key.
    expect(
      modelFromEnv(loadConfig({ TETHER_MODEL: "openai:llama3.1:8b", OPENAI_BASE_URL: "http://127.0.0.1:11434/v1" })),
    ).toMatchObject({ modelId: "llama3.1:8b" });
  });

  it("rejects a malformed TETHER_MODEL or a missing key, naming the variable", () => {
    expect(() => modelFromEnv(loadConfig({ TETHER_MODEL: "foo" }))).toThrow(
      /TETHER_MODEL must be "openai:<model>" or "anthropic:<model>".*got "foo"/,
    );
    expect(() => modelFromEnv(loadConfig({ TETHER_MODEL: "mistral:large", OPENAI_API_KEY: "k" }))).toThrow(
      /TETHER_MODEL must be/,
    );
    expect(() => modelFromEnv(loadConfig({ TETHER_MODEL: "openai:" }))).toThrow(/TETHER_MODEL must be/);
    expect(() => modelFromEnv(loadConfig({ TETHER_MODEL: "openai:gpt-4.1" }))).toThrow(/needs OPENAI_API_KEY/);
    expect(() => modelFromEnv(loadConfig({ TETHER_MODEL: "anthropic:claude" }))).toThrow(/needs ANTHROPIC_API_KEY/);
    expect(() =>
      modelFromEnv(loadConfig({ TETHER_MODEL: "openai:gpt-4.1", OPENAI_API_KEY: "k", OPENAI_BASE_URL: "not a url" })),
    ).toThrow(/OPENAI_BASE_URL must be an http\(s\) URL/);
  });

  it("talks to OPENAI_BASE_URL with the chat-completions API: a required tool call, parallel calls allowed", async () => {
    const requests: Array<{ url: string; body: Record<string, unknown>; auth: string | null }> = [];
    vi.stubGlobal("fetch", async (url: string, init: RequestInit) => {
      requests.push({
        url: String(url),
        body: JSON.parse(String(init.body)),
        auth: new Headers(init.headers).get("authorization"),
      });
      return new Response(
        JSON.stringify({
          id: "chatcmpl-1",
          object: "chat.completion",
          created: 1,
          model: "local-model",
          choices: [
            {
              index: 0,
              finish_reason: "tool_calls",
              message: {
                role: "assistant",
                content: null,
                tool_calls: [
                  { id: "call_1", type: "function", function: { name: "complete", arguments: '{"output":"ok"}' } },
                ],
              },
            },
          ],
          usage: { prompt_tokens: 50, completion_tokens: 5, total_tokens: 55 },
        }),
        { status: 200, headers: { "content-type": "application/json" } },
      );
    });
    const model = modelFromEnv(
      loadConfig({
        TETHER_MODEL: "openai:local-model",
        OPENAI_API_KEY: "sk-local",
        OPENAI_BASE_URL: "http://llm.internal:8080/v1/",
      }),
    )!;
    const out = await createModelPolicy({
      model,
      tools,
      pricing: pricingFromEnv(loadConfig({ TETHER_MODEL_PRICING: "0.4, 1.6" })),
    }).decide(policyInput());

    expect(out).toMatchObject({
      decision: { kind: "complete", output: "ok" },
      usage: { inputTokens: 50, outputTokens: 5, costUsd: (50 * 0.4 + 5 * 1.6) / 1e6 },
    });
    expect(requests).toHaveLength(1);
    expect(requests[0].url).toBe("http://llm.internal:8080/v1/chat/completions");
    expect(requests[0].auth).toBe("Bearer sk-local");
    expect(requests[0].body).toMatchObject({ model: "local-model", tool_choice: "required" });
    expect(requests[0].body.parallel_tool_calls).toBeUndefined();
    expect((requests[0].body.tools as Array<{ function: { name: string } }>).map((t) => t.function.name)).toContain(
      "orders_get",
    );
  });

  it("talks to Anthropic's messages API with one required tool use", async () => {
    const requests: Array<{ url: string; body: Record<string, unknown> }> = [];
    vi.stubGlobal("fetch", async (url: string, init: RequestInit) => {
      requests.push({ url: String(url), body: JSON.parse(String(init.body)) });
      return new Response(
        JSON.stringify({
          id: "msg_1",
          type: "message",
          role: "assistant",
          model: "claude-test",
          stop_reason: "tool_use",
          stop_sequence: null,
          content: [
            {
              type: "tool_use",
              id: "toolu_1",
              name: "orders_get",
              input: { args: { orderId: "o-42" }, reasoning: "read first", evidence: [] },
            },
          ],
          usage: { input_tokens: 70, output_tokens: 9 },
        }),
        { status: 200, headers: { "content-type": "application/json" } },
      );
    });
    const model = modelFromEnv(
      loadConfig({
        TETHER_MODEL: "anthropic:claude-test",
        ANTHROPIC_API_KEY: "key",
        ANTHROPIC_BASE_URL: "http://claude.internal/v1",
      }),
    )!;
    const out = await createModelPolicy({ model, tools, maxOutputTokens: 1024 }).decide(policyInput());

    expect(out).toMatchObject({
      decision: { kind: "call", tool: "orders.get", args: { orderId: "o-42" }, reasoning: "read first" },
      usage: { inputTokens: 70, outputTokens: 9 },
    });
    expect(requests[0].url).toBe("http://claude.internal/v1/messages");
    expect(requests[0].body).toMatchObject({ model: "claude-test", tool_choice: { type: "any" } });
    expect(requests[0].body.tool_choice).not.toHaveProperty("disable_parallel_tool_use");
    expect(requests[0].body.system).toEqual([
      expect.objectContaining({ text: expect.stringContaining("Agent instructions:") }),
    ]);
  });

  it("reads TETHER_MODEL_PRICING", () => {
    expect(pricingFromEnv(loadConfig({}))).toBeUndefined();
    expect(pricingFromEnv(loadConfig({ TETHER_MODEL_PRICING: "3,15" }))).toEqual({
      inputPerMTok: 3,
      outputPerMTok: 15,
    });
    expect(() => pricingFromEnv(loadConfig({ TETHER_MODEL_PRICING: "cheap" }))).toThrow(/TETHER_MODEL_PRICING must be/);
    expect(() => pricingFromEnv(loadConfig({ TETHER_MODEL_PRICING: "1,-2" }))).toThrow(/TETHER_MODEL_PRICING must be/);
  });
});
