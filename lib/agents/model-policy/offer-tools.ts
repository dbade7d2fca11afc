import { jsonSchema, tool, type JSONSchema7 } from "ai";
import { z } from "zod";
import type { PolicyInput, ToolDefinition } from "@/lib/runtime";
import { CONTROL_TOOLS, SPAWN_TOOL, type Offer } from "../model-prompt";
import { CONTROL } from "./control-tools";

// What the model may call in a turn: the agent's tools (their arguments wrapped with the reasoning, evidence and
// result key the engine records), the control tools, and `spawn` for an agent that may start child runs. The tools
// are offered without `execute`: the SDK never runs anything.

/** The wrapper's own keys around a tool's arguments (a model that drops `args` sends the arguments beside them). */
export const META_KEYS = ["args", "reasoning", "evidence", "uncertainty", "resultKey", "planStep"];

export function offerTools(
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
