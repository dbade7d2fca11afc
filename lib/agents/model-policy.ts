import {
  generateText,
  jsonSchema,
  streamText,
  tool,
  type JSONSchema7,
  type LanguageModel,
  type LanguageModelUsage,
  type ModelMessage,
} from "ai";
import { z } from "zod";
import type {
  AgentDefinition,
  Decision,
  ModelUsage,
  Policy,
  PolicyInput,
  RunState,
  ToolDefinition,
} from "@/lib/runtime";
import {
  clip,
  CONTROL_TOOLS,
  json,
  renderState,
  renderSystem,
  SPAWN_TOOL,
  type ControlTool,
  type Offer,
} from "./model-prompt";
import type { TokenSink } from "@/lib/live/live-feed";
import { describeModel, type ModelPricing } from "./model-provider";

export { CONTROL_TOOLS };

// A model policy: the agent's next decision is chosen by a language model (Vercel AI SDK, any provider).
//
// Each turn the model sees the run's explicit state — the instructions in force, the input, the plan, the
// facts with their kind, authority and age, the approvals and what was turned down, the last observations —
// and calls one tool or several: the agent's tools (the engine checks permissions, validates the arguments
// against the tool's schema and executes them) and, only as the last call, a control tool (complete, fail,
// sleep, wait_event, record; and `spawn` for an agent that may start child runs: AgentDefinition.spawns).
// The SDK never executes anything: the tools are offered without `execute`.
//
// Several calls in one turn: the first is the step's decision, the rest `queued`; the engine keeps
// them in the run's state and takes one a step without asking again, and drops the rest once one of them does
// not succeed (lib/runtime/turns.ts). A call after one that cannot be used (an unknown tool, input that is not
// an object) is dropped with it (raw.droppedToolCalls); a control tool before the last call makes the reply
// unusable, and the model is asked again.
//
// What the model does not choose (docs/security.md): the plan step a call serves — permission rules match on it — is
// the plan's active step; the key its result is kept under may be suggested, and the engine keeps it under
// the tool's own key when that key holds a fact the tool does not own (lib/runtime/fact-keys.ts).
//
// Replay: the engine records the decision with the step's commit (and in the effect intent before a call),
// so a resumed run never asks the model again for a step it acted on, and a fork replays it while its state
// is the source's. Arguments are not validated here: a bad call comes back to the model as the step's
// observation, which the prompt shows.
//
// Live output: given a token sink (the console's live feed, lib/live), the model is called with streamText
// and what it writes — its text and its tool calls' arguments as they arrive — is published under the run as
// it comes (the run page shows it); nothing of it is stored: the step commits the finished answer exactly as
// without streaming. Without a sink, or with `stream: false` (a provider that cannot stream), generateText.

export type ModelPolicyOptions = {
  model: LanguageModel;
  /** Definitions of the tools the agent may use (their zod input schemas are offered to the model). */
  tools: ToolDefinition[];
  /** USD per million tokens; without it the cost of a step is not recorded. */
  pricing?: ModelPricing;
  /** Extra attempts when the model answers without a usable tool call (default 1), then a `fail` decision. */
  retries?: number;
  /** The SDK's own retries of a failed API call (rate limit, 5xx) — default 2. */
  maxRetries?: number;
  /** Per model call (default 120 s): a hung call must not hold the run's lease forever. */
  timeoutMs?: number;
  temperature?: number;
  maxOutputTokens?: number;
  /** Let the model make several calls in one turn (default true); false asks providers for one call a turn. */
  parallelToolCalls?: boolean;
  /** Where a running step's tokens go (the console's live feed); without it the model is not streamed. */
  tokens?: TokenSink;
  /** Stream when there is a sink (default true); false for a provider that does not support streaming. */
  stream?: boolean;
};

const NOT_CHOSEN = "the model did not choose an action";
const MAX_RAW_CHARS = 4000;

/** The agents thinking with one model instead of their scripts, each offered the tools it names. */
export function withModelPolicies(
  agents: AgentDefinition[],
  tools: ToolDefinition[],
  options: Omit<ModelPolicyOptions, "tools">,
): AgentDefinition[] {
  // An internal agent (the open gate's) is machinery with a fixed script: no model decides it.
  return agents.map((agent) =>
    agent.internal
      ? agent
      : {
          ...agent,
          policy: createModelPolicy({ ...options, tools: tools.filter((t) => agent.tools.includes(t.name)) }),
        },
  );
}

export function createModelPolicy(options: ModelPolicyOptions): Policy {
  const definitions = new Map(options.tools.map((t) => [t.name, t]));
  const schemaCache = new Map<string, JSONSchema7>();
  const retries = Math.max(0, options.retries ?? 1);
  const modelName = describeModel(options.model);

  return {
    async decide(input: PolicyInput) {
      const offer = offerTools(input, definitions, schemaCache);
      const messages: ModelMessage[] = [{ role: "user", content: renderState(input, offer) }];
      const usage = { inputTokens: 0, outputTokens: 0 };
      const problems: string[] = [];
      let lastText: string | undefined;

      for (let attempt = 1; attempt <= 1 + retries; attempt++) {
        let result: ModelAnswer;
        const call: ModelCall = {
          model: options.model,
          system: renderSystem(input),
          messages,
          tools: offer.tools,
          toolChoice: "required",
          // Several calls a turn are taken one a step by the engine; without them, ask providers not to batch.
          ...(options.parallelToolCalls === false
            ? { providerOptions: { openai: { parallelToolCalls: false }, anthropic: { disableParallelToolUse: true } } }
            : {}),
          maxRetries: options.maxRetries ?? 2,
          abortSignal: AbortSignal.timeout(options.timeoutMs ?? 120_000),
          ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
          ...(options.maxOutputTokens !== undefined ? { maxOutputTokens: options.maxOutputTokens } : {}),
        };
        try {
          const sink =
            options.tokens && options.stream !== false && input.runId
              ? { tokens: options.tokens, runId: input.runId, step: input.state.step, attempt }
              : null;
          result = sink ? await streamAnswer(call, sink) : await generateText(call);
        } catch (error) {
          throw new Error(
            `the model ${modelName} could not be called: ${error instanceof Error ? error.message : String(error)}`,
            { cause: error },
          );
        }
        const stepUsage = result.totalUsage ?? result.usage;
        usage.inputTokens += stepUsage?.inputTokens ?? 0;
        usage.outputTokens += stepUsage?.outputTokens ?? 0;
        lastText = result.text || undefined;

        const calls = result.content.filter((part) => part.type === "tool-call");
        const turn =
          calls.length === 0
            ? {
                ok: false as const,
                problem: `it called no tool (finish reason: ${result.finishReason}${result.text ? `; it wrote: ${clip(result.text, 300)}` : ""})`,
              }
            : interpretTurn(calls, offer, input.state, result.text);
        if (turn.ok) {
          const [decision, ...queued] = turn.decisions;
          const raw = {
            model: modelName,
            attempts: attempt,
            toolCall: { name: calls[0].toolName, input: small(calls[0].input) },
            ...(calls.length > 1 ? { toolCalls: calls.map((c) => ({ name: c.toolName, input: small(c.input) })) } : {}),
            ...(result.text ? { text: clip(result.text, 1000) } : {}),
            ...(turn.dropped.length ? { droppedToolCalls: turn.dropped } : {}),
            ...(problems.length ? { problems } : {}),
          };
          return { decision, ...(queued.length ? { queued } : {}), usage: withCost(usage, options.pricing), raw };
        }
        problems.push(turn.problem);
        messages.push({
          role: "user",
          content: `Your previous reply could not be used: ${turn.problem}. Reply again by calling the offered tools with arguments that match their schemas (a control tool only as the last call).`,
        });
      }
      return {
        decision: { kind: "fail", reason: NOT_CHOSEN },
        usage: withCost(usage, options.pricing),
        raw: { model: modelName, attempts: 1 + retries, problems, ...(lastText ? { text: clip(lastText, 1000) } : {}) },
      };
    },
  };
}

// ---- calling the model: at once, or streamed

type ModelCall = Parameters<typeof generateText>[0] & { tools: Offer["tools"] };
/** What decide reads of an answer, the same whether it was streamed or not. */
type ModelAnswer = Pick<Awaited<ReturnType<typeof generateText>>, "content" | "text" | "finishReason" | "usage"> & {
  totalUsage?: LanguageModelUsage;
};

/** streamText, publishing each piece of text and of a tool call's arguments as it arrives; the answer as generateText's. */
async function streamAnswer(
  call: ModelCall,
  sink: { tokens: TokenSink; runId: string; step: number; attempt: number },
): Promise<ModelAnswer> {
  const result = streamText({ ...call, onError: () => {} }); // an error part is thrown below instead of logged
  const toolNames = new Map<string, string>();
  const publish = (kind: "text" | "tool", delta: string, name?: string) =>
    sink.tokens.publishTokens(sink.runId, {
      step: sink.step,
      attempt: sink.attempt,
      kind,
      ...(name ? { name } : {}),
      delta,
    });
  for await (const part of result.fullStream) {
    if (part.type === "text-delta") publish("text", part.text);
    else if (part.type === "tool-input-start") toolNames.set(part.id, part.toolName);
    else if (part.type === "tool-input-delta") publish("tool", part.delta, toolNames.get(part.id));
    else if (part.type === "error") throw part.error;
  }
  const [content, text, finishReason, usage, totalUsage] = await Promise.all([
    result.content,
    result.text,
    result.finishReason,
    result.usage,
    result.totalUsage,
  ]);
  return { content, text, finishReason, usage, totalUsage };
}

// ---- what the model may call

const META_KEYS = ["args", "reasoning", "evidence", "uncertainty", "resultKey", "planStep"];

function offerTools(
  input: PolicyInput,
  definitions: Map<string, ToolDefinition>,
  cache: Map<string, JSONSchema7>,
): Offer {
  const offer: Offer = { tools: {}, targets: new Map(), fnName: new Map() };
  const taken = new Set<string>([...CONTROL_TOOLS, SPAWN_TOOL]);
  const planIds = input.state.plan.map((p) => p.id);

  for (const info of input.tools) {
    const fn = functionName(info.name, taken);
    taken.add(fn);
    offer.targets.set(fn, { kind: "agent", tool: info.name });
    offer.fnName.set(info.name, fn);
    const args = argsSchema(definitions.get(info.name) ?? info, cache);
    offer.tools[fn] = tool({
      description: `${info.name}: ${info.description} (capability: ${info.capability}; effects: ${SEMANTICS[info.semantics] ?? info.semantics})`,
      inputSchema: jsonSchema({
        type: "object",
        properties: {
          args: {
            ...args,
            description: `The arguments of ${info.name}. The runtime checks them against this schema; a mismatch comes back as the next observation.`,
          },
          reasoning: {
            type: "string",
            description: "Why this is the right next action, in one or two sentences, citing facts.",
          },
          evidence: {
            type: "array",
            items: { type: "string" },
            description: "The keys of the facts this action rests on.",
          },
          uncertainty: {
            type: "string",
            description: "What you are unsure about, if anything (shown to a person who approves it).",
          },
          resultKey: {
            type: "string",
            description: `The fact key to keep the result under (default: ${info.name}); a key holding another tool's or a person's fact is not replaced.`,
          },
        },
        required: ["args", "reasoning", "evidence"],
        additionalProperties: false,
      }),
    });
  }

  for (const name of CONTROL_TOOLS) {
    offer.targets.set(name, { kind: "control", tool: name });
    offer.tools[name] = tool({
      description: CONTROL[name].description,
      inputSchema: jsonSchema(CONTROL[name].json(planIds)),
    });
  }
  if (input.children?.length) {
    offer.targets.set(SPAWN_TOOL, { kind: "spawn" });
    const schemas = input.children.map(
      (c) => `${c.slug}: ${JSON.stringify(argsSchema({ name: `spawn:${c.slug}`, input: c.input }, cache))}`,
    );
    offer.tools[SPAWN_TOOL] = tool({
      description:
        'Start a run of another agent with its input and wait for it to end (durably: the run parks). Its outcome (status, output or error) comes back as a receipt fact "child:<runId>". Only as the last call of a turn.',
      inputSchema: jsonSchema({
        type: "object",
        properties: {
          agent: { type: "string", enum: input.children.map((c) => c.slug) },
          input: { description: `The child run's input, matching its agent's input schema: ${schemas.join("; ")}` },
          reason: { type: "string", description: "Why this work is delegated, in one sentence." },
        },
        required: ["agent", "input", "reason"],
      }),
    });
  }
  return offer;
}

const SEMANTICS: Record<string, string> = {
  "pure-read": "read-only, no side effects",
  idempotent: "changes the world; safe to retry (idempotency key)",
  reconcilable: "changes the world; a repeat is detected by lookup",
  unsafe: "changes the world; an interrupted call needs a person to check",
};

/** Function names must match ^[a-zA-Z0-9_-]{1,64}$ for OpenAI and Anthropic: "orders.get" → "orders_get". */
function functionName(name: string, taken: Set<string>): string {
  const base = name.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, 56) || "tool";
  let fn = base;
  for (let i = 2; taken.has(fn); i++) fn = `${base}_${i}`;
  return fn;
}

function argsSchema(definition: Pick<ToolDefinition, "name" | "input">, cache: Map<string, JSONSchema7>): JSONSchema7 {
  let schema = cache.get(definition.name);
  if (!schema) {
    try {
      const { $schema: _drop, ...rest } = z.toJSONSchema(definition.input, {
        target: "draft-7",
        io: "input",
        unrepresentable: "any",
      }) as JSONSchema7;
      schema = rest;
    } catch {
      schema = { type: "object" };
    }
    cache.set(definition.name, schema);
  }
  return schema;
}

// ---- control tools: their JSON schemas for the model, and zod to check what it sent

const planUpdate = z.array(
  z.object({ id: z.string(), status: z.enum(["pending", "active", "done", "skipped", "failed"]) }),
);
const PLAN_STATUSES = ["pending", "active", "done", "skipped", "failed"];

const CONTROL: Record<
  ControlTool,
  { description: string; json: (planIds: string[]) => JSONSchema7; check: z.ZodType<Record<string, unknown>> }
> = {
  complete: {
    description:
      "Finish the run with its output. Only when the task is done (or there is nothing left to do) and the facts support it.",
    json: () => ({
      type: "object",
      properties: {
        output: { description: "The run's result: a JSON value a person or program can read." },
        reasoning: { type: "string" },
      },
      required: ["output"],
    }),
    check: z.object({ output: z.unknown(), reasoning: z.string().optional() }),
  },
  fail: {
    description: "Stop the run as failed, with the reason. Use when the task cannot be done.",
    json: () => ({ type: "object", properties: { reason: { type: "string" } }, required: ["reason"] }),
    check: z.object({ reason: z.string().min(1) }),
  },
  sleep: {
    description: "Wait for a duration (a durable timer: the run survives restarts), then decide again.",
    json: () => ({
      type: "object",
      properties: { durationMs: { type: "integer", minimum: 1 }, reason: { type: "string" } },
      required: ["durationMs", "reason"],
    }),
    check: z.object({ durationMs: z.number().int().positive(), reason: z.string().optional() }),
  },
  wait_event: {
    description: "Wait for an external event (a signal of this type: a callback, a reply), optionally with a timeout.",
    json: () => ({
      type: "object",
      properties: {
        eventType: { type: "string" },
        timeoutMs: { type: "integer", minimum: 1 },
        reason: { type: "string" },
      },
      required: ["eventType"],
    }),
    check: z.object({
      eventType: z.string().min(1),
      timeoutMs: z.number().int().positive().optional(),
      reason: z.string().optional(),
    }),
  },
  record: {
    description:
      "Write down conclusions as facts (kept as unverified inferences) and/or update the plan's step statuses. It takes a step; prefer acting when you can.",
    json: (planIds) => ({
      type: "object",
      properties: {
        facts: {
          type: "array",
          items: {
            type: "object",
            properties: { key: { type: "string" }, value: { description: "any JSON value" } },
            required: ["key", "value"],
          },
        },
        ...(planIds.length
          ? {
              plan: {
                type: "array",
                description: "Status updates for plan steps.",
                items: {
                  type: "object",
                  properties: {
                    id: { type: "string", enum: planIds },
                    status: { type: "string", enum: PLAN_STATUSES },
                  },
                  required: ["id", "status"],
                },
              },
            }
          : {}),
        reason: { type: "string" },
      },
      required: ["facts"],
    }),
    check: z
      .object({
        facts: z.array(z.object({ key: z.string().min(1), value: z.unknown() })).default([]),
        plan: planUpdate.optional(),
        reason: z.string().optional(),
      })
      .refine((r) => r.facts.length > 0 || (r.plan?.length ?? 0) > 0, "record needs at least one fact or plan update"),
  },
};

type Interpretation = { ok: true; decision: Decision } | { ok: false; problem: string };
type ToolCallPart = { toolName: string; input: unknown };

/**
 * Every call of the reply, in order. The first must be usable (else the reply is not); a later one that is
 * not is dropped with the calls after it. A control tool ends a turn: one before the last call makes the reply unusable.
 */
function interpretTurn(
  calls: ToolCallPart[],
  offer: Offer,
  state: RunState,
  text: string,
):
  | { ok: true; decisions: Decision[]; dropped: Array<{ name: string; problem: string }> }
  | { ok: false; problem: string } {
  const control = calls.findIndex((c) => {
    const kind = offer.targets.get(c.toolName)?.kind;
    return kind === "control" || kind === "spawn";
  });
  if (control !== -1 && control < calls.length - 1) {
    return {
      ok: false,
      problem: `it called ${calls[control].toolName} before other tools in the same turn; a control tool (${[...CONTROL_TOOLS, SPAWN_TOOL].join(", ")}) may only be the last call`,
    };
  }
  const decisions: Decision[] = [];
  for (const [i, call] of calls.entries()) {
    const choice = interpret(call.toolName, call.input, offer, state, i === 0 ? text : "");
    if (choice.ok) {
      decisions.push(choice.decision);
      continue;
    }
    if (i === 0) return choice;
    return {
      ok: true,
      decisions,
      dropped: calls
        .slice(i)
        .map((c, j) => ({
          name: c.toolName,
          problem: j === 0 ? choice.problem : "it came after a call that could not be used",
        })),
    };
  }
  return { ok: true, decisions, dropped: [] };
}

function interpret(fn: string, rawInput: unknown, offer: Offer, state: RunState, text: string): Interpretation {
  const target = offer.targets.get(fn);
  if (!target)
    return {
      ok: false,
      problem: `it called "${fn}", which is not one of the offered tools (${[...offer.targets.keys()].join(", ")})`,
    };
  const input = dropNulls(parseMaybeJson(rawInput));
  if (!isRecord(input))
    return { ok: false, problem: `the input of ${fn} is not a JSON object: ${clip(String(rawInput), 200)}` };

  if (target.kind === "agent") {
    const activeStep = state.plan.find((p) => p.status === "active")?.id;
    const args =
      "args" in input
        ? parseMaybeJson(input.args)
        : Object.fromEntries(Object.entries(input).filter(([k]) => !META_KEYS.includes(k)));
    const reasoning =
      typeof input.reasoning === "string" && input.reasoning ? input.reasoning : text.trim() || undefined;
    const evidence = Array.isArray(input.evidence)
      ? input.evidence.filter((e): e is string => typeof e === "string")
      : [];
    const decision: Decision = {
      kind: "call",
      tool: target.tool,
      args: args ?? {},
      evidence,
      ...(reasoning ? { reasoning: clip(reasoning, 2000) } : {}),
      ...(typeof input.uncertainty === "string" && input.uncertainty
        ? { uncertainty: clip(input.uncertainty, 2000) }
        : {}),
      ...(typeof input.resultKey === "string" && input.resultKey ? { resultKey: input.resultKey } : {}),
      // Not the model's to choose: permission rules match on it. The step the plan is at (docs/security.md).
      ...(activeStep ? { planStep: activeStep } : {}),
    };
    return { ok: true, decision };
  }

  if (target.kind === "spawn") {
    if (typeof input.agent !== "string" || !input.agent)
      return { ok: false, problem: `the arguments of ${fn} are invalid (agent: name the agent to start)` };
    const reason = typeof input.reason === "string" && input.reason ? clip(input.reason, 2000) : undefined;
    return {
      ok: true,
      decision: {
        kind: "spawn",
        agent: input.agent,
        input: parseMaybeJson(input.input) ?? {},
        ...(reason ? { reason } : {}),
      },
    };
  }

  const parsed = CONTROL[target.tool].check.safeParse(input);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join(".") || "input"}: ${i.message}`).join("; ");
    return { ok: false, problem: `the arguments of ${fn} are invalid (${issues})` };
  }
  const args = parsed.data;
  switch (target.tool) {
    case "complete":
      return { ok: true, decision: { kind: "complete", output: args.output ?? null } };
    case "fail":
      return { ok: true, decision: { kind: "fail", reason: String(args.reason) } };
    case "sleep":
      return {
        ok: true,
        decision: {
          kind: "sleep",
          durationMs: Number(args.durationMs),
          ...(args.reason ? { reason: String(args.reason) } : {}),
        },
      };
    case "wait_event":
      return {
        ok: true,
        decision: {
          kind: "wait_event",
          eventType: String(args.eventType),
          ...(args.timeoutMs ? { timeoutMs: Number(args.timeoutMs) } : {}),
          ...(args.reason ? { reason: String(args.reason) } : {}),
        },
      };
    case "record": {
      const facts = (args.facts as Array<{ key: string; value: unknown }>).map((f) => ({
        key: f.key,
        value: f.value ?? null,
        kind: "inference" as const,
      }));
      const updates = args.plan as z.infer<typeof planUpdate> | undefined;
      const plan = updates?.length
        ? state.plan.map((step) => ({
            ...step,
            status: updates.findLast((u) => u.id === step.id)?.status ?? step.status,
          }))
        : undefined;
      return {
        ok: true,
        decision: {
          kind: "record",
          facts,
          ...(plan ? { plan } : {}),
          ...(args.reason ? { reason: String(args.reason) } : {}),
        },
      };
    }
  }
}

// ---- small helpers

function withCost(usage: { inputTokens: number; outputTokens: number }, pricing: ModelPricing | undefined): ModelUsage {
  if (!pricing) return { ...usage };
  const costUsd = (usage.inputTokens * pricing.inputPerMTok + usage.outputTokens * pricing.outputPerMTok) / 1_000_000;
  return { ...usage, costUsd: Math.round(costUsd * 1e9) / 1e9 };
}

/** The model's tool input, kept small for the trace (the decision holds the full arguments). */
function small(value: unknown): unknown {
  const text = json(value);
  return text.length > MAX_RAW_CHARS ? clip(text, MAX_RAW_CHARS) : value;
}

/** Some models send nested JSON as a string: '{"orderId":"o1"}'. */
function parseMaybeJson(value: unknown): unknown {
  if (typeof value !== "string" || !/^\s*[[{]/.test(value)) return value;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

/** Optional fields sent as null mean "not given". */
function dropNulls(value: unknown): unknown {
  return isRecord(value) ? Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null)) : value;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
