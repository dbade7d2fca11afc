import { generateText, jsonSchema, tool, type JSONSchema7, type LanguageModel, type ModelMessage, type Tool } from "ai";
import { z } from "zod";
import { FACT_AUTHORITY, type Decision, type Fact, type ModelUsage, type Observation, type Policy, type PolicyInput, type RunState, type ToolDefinition } from "@/lib/runtime";
import { describeModel, type ModelPricing } from "./model-provider";

// A model policy: the agent's next decision is chosen by a language model (Vercel AI SDK, any provider).
//
// Each step the model sees the run's explicit state — the instructions in force, the input, the plan, the
// facts with their kind, authority and age, the approvals and what was turned down, the last observations —
// and must call exactly one tool: one of the agent's tools (the engine checks permissions, validates the
// arguments against the tool's schema and executes it) or a control tool (complete, fail, sleep,
// wait_event, record). The SDK never executes anything: the tools are offered without `execute`.
//
// Replay: the engine records the decision with the step's commit (and in the effect intent before a call),
// so a resumed run never asks the model again for a step it acted on. Arguments are not validated here:
// a bad call comes back to the model as the step's observation, which the prompt shows.

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
};

export const CONTROL_TOOLS = ["complete", "fail", "sleep", "wait_event", "record"] as const;
type ControlTool = (typeof CONTROL_TOOLS)[number];

/** What a function name offered to the model stands for. */
type Target = { kind: "agent"; tool: string } | { kind: "control"; tool: ControlTool };
type Offer = { tools: Record<string, Tool>; targets: Map<string, Target>; fnName: Map<string, string> };

const NOT_CHOSEN = "the model did not choose an action";
const MAX_FACTS = 60;
const MAX_VALUE_CHARS = 1500;
const MAX_RAW_CHARS = 4000;
const RECENT_OBSERVATIONS = 5;

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
        let result: Awaited<ReturnType<typeof generateText>>;
        try {
          result = await generateText({
            model: options.model,
            system: renderSystem(input),
            messages,
            tools: offer.tools,
            toolChoice: "required",
            // One decision per step: ask providers that support it not to batch calls.
            providerOptions: { openai: { parallelToolCalls: false }, anthropic: { disableParallelToolUse: true } },
            maxRetries: options.maxRetries ?? 2,
            abortSignal: AbortSignal.timeout(options.timeoutMs ?? 120_000),
            ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
            ...(options.maxOutputTokens !== undefined ? { maxOutputTokens: options.maxOutputTokens } : {}),
          });
        } catch (error) {
          throw new Error(`the model ${modelName} could not be called: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
        }
        const stepUsage = result.totalUsage ?? result.usage;
        usage.inputTokens += stepUsage?.inputTokens ?? 0;
        usage.outputTokens += stepUsage?.outputTokens ?? 0;
        lastText = result.text || undefined;

        const calls = result.content.filter((part) => part.type === "tool-call");
        const choice = calls.length === 0
          ? { ok: false as const, problem: `it called no tool (finish reason: ${result.finishReason}${result.text ? `; it wrote: ${clip(result.text, 300)}` : ""})` }
          : interpret(calls[0].toolName, calls[0].input, offer, input.state, result.text);
        if (choice.ok) {
          const raw = {
            model: modelName,
            attempts: attempt,
            toolCall: { name: calls[0].toolName, input: small(calls[0].input) },
            ...(result.text ? { text: clip(result.text, 1000) } : {}),
            ...(calls.length > 1 ? { ignoredToolCalls: calls.slice(1).map((c) => c.toolName) } : {}),
            ...(problems.length ? { problems } : {}),
          };
          return { decision: choice.decision, usage: withCost(usage, options.pricing), raw };
        }
        problems.push(choice.problem);
        messages.push({
          role: "user",
          content: `Your previous reply could not be used: ${choice.problem}. Reply again by calling exactly one of the offered tools with arguments that match its schema.`,
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

// ---- what the model may call

const META_KEYS = ["args", "reasoning", "evidence", "uncertainty", "resultKey", "planStep"];

function offerTools(input: PolicyInput, definitions: Map<string, ToolDefinition>, cache: Map<string, JSONSchema7>): Offer {
  const offer: Offer = { tools: {}, targets: new Map(), fnName: new Map() };
  const taken = new Set<string>(CONTROL_TOOLS);
  const planIds = input.state.plan.map((p) => p.id);

  for (const info of input.tools) {
    const fn = functionName(info.name, taken);
    taken.add(fn);
    offer.targets.set(fn, { kind: "agent", tool: info.name });
    offer.fnName.set(info.name, fn);
    const definition = definitions.get(info.name);
    const args = definition ? argsSchema(definition, cache) : { type: "object" as const, description: "The tool's arguments." };
    offer.tools[fn] = tool({
      description: `${info.name}: ${info.description} (capability: ${info.capability}; effects: ${SEMANTICS[info.semantics] ?? info.semantics})`,
      inputSchema: jsonSchema({
        type: "object",
        properties: {
          args: { ...args, description: `The arguments of ${info.name}. The runtime checks them against this schema; a mismatch comes back as the next observation.` },
          reasoning: { type: "string", description: "Why this is the right next action, in one or two sentences, citing facts." },
          evidence: { type: "array", items: { type: "string" }, description: "The keys of the facts this action rests on." },
          uncertainty: { type: "string", description: "What you are unsure about, if anything (shown to a person who approves it)." },
          resultKey: { type: "string", description: `The fact key to keep the result under (default: ${info.name}).` },
          ...(planIds.length ? { planStep: { type: "string", enum: planIds, description: "The plan step this action serves." } } : {}),
        },
        required: ["args", "reasoning", "evidence"],
        additionalProperties: false,
      }),
    });
  }

  for (const name of CONTROL_TOOLS) {
    offer.targets.set(name, { kind: "control", tool: name });
    offer.tools[name] = tool({ description: CONTROL[name].description, inputSchema: jsonSchema(CONTROL[name].json(planIds)) });
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

function argsSchema(definition: ToolDefinition, cache: Map<string, JSONSchema7>): JSONSchema7 {
  let schema = cache.get(definition.name);
  if (!schema) {
    try {
      const { $schema: _drop, ...rest } = z.toJSONSchema(definition.input, { target: "draft-7", io: "input", unrepresentable: "any" }) as JSONSchema7;
      schema = rest;
    } catch {
      schema = { type: "object" };
    }
    cache.set(definition.name, schema);
  }
  return schema;
}

// ---- control tools: their JSON schemas for the model, and zod to check what it sent

const planUpdate = z.array(z.object({ id: z.string(), status: z.enum(["pending", "active", "done", "skipped", "failed"]) }));
const PLAN_STATUSES = ["pending", "active", "done", "skipped", "failed"];

const CONTROL: Record<ControlTool, { description: string; json: (planIds: string[]) => JSONSchema7; check: z.ZodType<Record<string, unknown>> }> = {
  complete: {
    description: "Finish the run with its output. Only when the task is done (or there is nothing left to do) and the facts support it.",
    json: () => ({
      type: "object",
      properties: { output: { description: "The run's result: a JSON value a person or program can read." }, reasoning: { type: "string" } },
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
      properties: { eventType: { type: "string" }, timeoutMs: { type: "integer", minimum: 1 }, reason: { type: "string" } },
      required: ["eventType"],
    }),
    check: z.object({ eventType: z.string().min(1), timeoutMs: z.number().int().positive().optional(), reason: z.string().optional() }),
  },
  record: {
    description: "Write down conclusions as facts (kept as unverified inferences) and/or update the plan's step statuses. It takes a step; prefer acting when you can.",
    json: (planIds) => ({
      type: "object",
      properties: {
        facts: { type: "array", items: { type: "object", properties: { key: { type: "string" }, value: { description: "any JSON value" } }, required: ["key", "value"] } },
        ...(planIds.length
          ? { plan: { type: "array", description: "Status updates for plan steps.", items: { type: "object", properties: { id: { type: "string", enum: planIds }, status: { type: "string", enum: PLAN_STATUSES } }, required: ["id", "status"] } } }
          : {}),
        reason: { type: "string" },
      },
      required: ["facts"],
    }),
    check: z
      .object({ facts: z.array(z.object({ key: z.string().min(1), value: z.unknown() })).default([]), plan: planUpdate.optional(), reason: z.string().optional() })
      .refine((r) => r.facts.length > 0 || (r.plan?.length ?? 0) > 0, "record needs at least one fact or plan update"),
  },
};

type Interpretation = { ok: true; decision: Decision } | { ok: false; problem: string };

function interpret(fn: string, rawInput: unknown, offer: Offer, state: RunState, text: string): Interpretation {
  const target = offer.targets.get(fn);
  if (!target) return { ok: false, problem: `it called "${fn}", which is not one of the offered tools (${[...offer.targets.keys()].join(", ")})` };
  const input = dropNulls(parseMaybeJson(rawInput));
  if (!isRecord(input)) return { ok: false, problem: `the input of ${fn} is not a JSON object: ${clip(String(rawInput), 200)}` };

  if (target.kind === "agent") {
    const args = "args" in input ? parseMaybeJson(input.args) : Object.fromEntries(Object.entries(input).filter(([k]) => !META_KEYS.includes(k)));
    const reasoning = typeof input.reasoning === "string" && input.reasoning ? input.reasoning : text.trim() || undefined;
    const evidence = Array.isArray(input.evidence) ? input.evidence.filter((e): e is string => typeof e === "string") : [];
    const decision: Decision = {
      kind: "call",
      tool: target.tool,
      args: args ?? {},
      evidence,
      ...(reasoning ? { reasoning: clip(reasoning, 2000) } : {}),
      ...(typeof input.uncertainty === "string" && input.uncertainty ? { uncertainty: clip(input.uncertainty, 2000) } : {}),
      ...(typeof input.resultKey === "string" && input.resultKey ? { resultKey: input.resultKey } : {}),
      ...(typeof input.planStep === "string" && input.planStep ? { planStep: input.planStep } : {}),
    };
    return { ok: true, decision };
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
      return { ok: true, decision: { kind: "sleep", durationMs: Number(args.durationMs), ...(args.reason ? { reason: String(args.reason) } : {}) } };
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
      const facts = (args.facts as Array<{ key: string; value: unknown }>).map((f) => ({ key: f.key, value: f.value ?? null, kind: "inference" as const }));
      const updates = args.plan as z.infer<typeof planUpdate> | undefined;
      const plan = updates?.length
        ? state.plan.map((step) => ({ ...step, status: updates.findLast((u) => u.id === step.id)?.status ?? step.status }))
        : undefined;
      return { ok: true, decision: { kind: "record", facts, ...(plan ? { plan } : {}), ...(args.reason ? { reason: String(args.reason) } : {}) } };
    }
  }
}

// ---- the prompt

function renderSystem(input: PolicyInput): string {
  const [own, ...redirects] = input.instructions;
  return [
    "You are the decision-maker of an agent run by Tether, a durable runtime. Each turn you choose the run's single next action by calling exactly one tool.",
    "The runtime acts on your choice: it checks permissions, may ask a person to approve, validates the arguments against the tool's schema, executes the tool, and records the outcome as facts and an observation you will see next turn. You never see a transcript: the run's state below is the record.",
    "Rules:",
    "- Call exactly one tool per turn. Put the tool's own arguments under `args`; cite the fact keys you rely on in `evidence`.",
    "- Trust facts by their kind: decision (a person decided) and receipt (an external system confirmed) are authoritative; an observation was true when read and may be stale — re-read a stale one before acting on it; an inference is only a belief, never enough on its own.",
    "- If the last observation is an error, correct the call it describes instead of repeating it. An action a person rejected or a rule denied must not be asked for again unchanged.",
    "- Use `complete` when the task is done, `fail` when it cannot be done, `wait_event` for an external callback, `sleep` to wait for time to pass, `record` to write down a conclusion or update the plan.",
    "",
    "Agent instructions:",
    own ?? "(none)",
    ...(redirects.length
      ? ["", "A person redirected this run; these instructions came later and override the ones above where they conflict (newest last):", ...redirects.map((r, i) => `${i + 1}. ${r}`)]
      : []),
  ].join("\n");
}

function renderState(input: PolicyInput, offer: Offer): string {
  const { state } = input;
  const now = input.now().getTime();
  const lines: string[] = [];
  lines.push(`Run state at step ${state.step} (now: ${new Date(now).toISOString()}).`, "");
  lines.push("## Input", clip(json(state.input), 4000), "");

  lines.push("## Plan");
  if (state.plan.length) for (const p of state.plan) lines.push(`- ${p.id} [${p.status}]: ${p.title}`);
  else lines.push("(no plan)");
  lines.push("");

  lines.push("## Facts (newest per key; kind and authority in brackets)");
  for (const kind of Object.keys(FACT_AUTHORITY) as Array<keyof typeof FACT_AUTHORITY>) lines.push(`  · ${kind}: ${FACT_AUTHORITY[kind].authority}`);
  const facts = latestPerKey(state.facts);
  if (facts.length === 0) lines.push("(no facts yet)");
  if (facts.length > MAX_FACTS) lines.push(`(${facts.length - MAX_FACTS} older facts not shown)`);
  for (const { fact, superseded } of facts.slice(-MAX_FACTS)) lines.push(renderFact(fact, superseded, now));
  lines.push("");

  if (state.approvals.length) {
    lines.push("## Approvals given by people");
    for (const a of state.approvals) {
      lines.push(`- ${a.decision} of ${offer.fnName.get(a.tool) ?? a.tool} at step ${a.step} by ${a.by.join(", ") || "?"} (${age(now, a.at)})${a.usedAt ? ", already used" : ", not used yet"}`);
    }
    lines.push("");
  }
  const turnedDown = state.observations.filter((o) => o.kind === "rejected" || o.kind === "denied" || o.kind === "expired" || o.kind === "redirected");
  if (turnedDown.length) {
    lines.push("## Turned down (do not ask again unchanged)");
    for (const o of turnedDown) lines.push(`- step ${o.step}: ${renderObservation(o, offer)}`);
    lines.push("");
  }
  if (state.risks.length) {
    lines.push("## Risks");
    for (const r of state.risks) lines.push(`- [${r.level}] ${r.description}`);
    lines.push("");
  }

  const recent = state.observations.slice(-RECENT_OBSERVATIONS);
  const last = input.lastObservation ?? recent.at(-1);
  const earlier = recent.filter((o) => o !== last);
  if (earlier.length) {
    lines.push("## Earlier observations (oldest first)");
    for (const o of earlier) lines.push(`- step ${o.step}: ${renderObservation(o, offer)}`);
    lines.push("");
  }
  lines.push("## LAST OBSERVATION — the outcome of the previous step");
  lines.push(last ? `step ${last.step}: ${renderObservation(last, offer)}` : "(none: this is the first step)");
  lines.push("");

  lines.push("## Your tools");
  for (const t of input.tools) lines.push(`- ${offer.fnName.get(t.name)} = ${t.name} (${t.capability}, ${t.semantics}): ${t.description}`);
  lines.push(`- control: ${CONTROL_TOOLS.join(", ")}`);
  if (state.consecutiveErrors > 0) lines.push("", `Warning: ${state.consecutiveErrors} failed action(s) in a row; the run stops after a few more.`);
  lines.push("", "Choose the next action now: call exactly one tool.");
  return lines.join("\n");
}

function renderFact(fact: Fact, superseded: number, now: number): string {
  const src = fact.source;
  const detail: string[] = [];
  if (fact.kind === "observation") {
    detail.push(`read${src.tool ? ` by ${src.tool}` : ""} ${age(now, fact.at)}`);
    if (fact.expiresAt) {
      const left = Date.parse(fact.expiresAt) - now;
      detail.push(left > 0 ? `fresh for ${duration(left)} more` : `STALE since ${duration(-left)} ago: re-read before relying on it`);
    }
  } else if (fact.kind === "receipt") {
    detail.push(`confirmed${src.tool ? ` by ${src.tool}` : ""}${src.receiptId ? `, receipt ${src.receiptId}` : ""} ${age(now, fact.at)}`);
  } else if (fact.kind === "decision") {
    detail.push(`decided${src.by ? ` by ${src.by}` : " by a person"} ${age(now, fact.at)}`);
  } else {
    detail.push(`unverified belief from step ${fact.step}, ${age(now, fact.at)}`);
  }
  if (superseded) detail.push(`replaces ${superseded} earlier value(s)`);
  return `- ${fact.key} [${fact.kind}; ${detail.join("; ")}] = ${clip(json(fact.value), MAX_VALUE_CHARS)}`;
}

function renderObservation(o: Observation, offer: Offer): string {
  const tool = o.tool ? ` ${offer.fnName.get(o.tool) ?? o.tool}` : "";
  const data = o.data === undefined ? "" : ` — ${clip(json(o.data), MAX_VALUE_CHARS)}`;
  return `${o.kind}${tool}: ${o.message}${data}`;
}

function latestPerKey(facts: Fact[]): Array<{ fact: Fact; superseded: number }> {
  const byKey = new Map<string, { fact: Fact; superseded: number }>();
  for (const fact of facts) {
    const seen = byKey.get(fact.key);
    byKey.delete(fact.key); // re-inserted last: the map keeps the order in which keys were last learned
    byKey.set(fact.key, { fact, superseded: seen ? seen.superseded + 1 : 0 });
  }
  return [...byKey.values()];
}

// ---- small helpers

function withCost(usage: { inputTokens: number; outputTokens: number }, pricing: ModelPricing | undefined): ModelUsage {
  if (!pricing) return { ...usage };
  const costUsd = (usage.inputTokens * pricing.inputPerMTok + usage.outputTokens * pricing.outputPerMTok) / 1_000_000;
  return { ...usage, costUsd: Math.round(costUsd * 1e9) / 1e9 };
}

function age(now: number, iso: string): string {
  const ms = now - Date.parse(iso);
  return Number.isFinite(ms) ? (ms < 1000 ? "just now" : `${duration(ms)} ago`) : "at an unknown time";
}

function duration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.round(s / 60)}m`;
  if (s < 86_400) return `${Math.round(s / 3600)}h`;
  return `${Math.round(s / 86_400)}d`;
}

function json(value: unknown): string {
  try {
    return JSON.stringify(value) ?? "null";
  } catch {
    return String(value);
  }
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…(${text.length - max} more chars)` : text;
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
