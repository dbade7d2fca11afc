import type { JSONSchema7, ModelMessage } from "ai";
import type { ModelUsage, Policy, PolicyInput } from "@/lib/runtime";
import { clip, json, renderState } from "../model-prompt";
import { describeModel, type ModelPricing } from "../model-provider";
import { callModel } from "./call-model";
import { interpretTurn } from "./interpret-turn";
import { offerTools } from "./offer-tools";
import type { ModelPolicyOptions } from "./options";

// The policy's turn: offer the tools, call the model, read its calls as decisions; a reply that cannot be used is
// sent back with what was wrong, `retries` times, and then the step fails. Tokens and cost add up over the attempts.

const NOT_CHOSEN = "the model did not choose an action";
const MAX_RAW_CHARS = 4000;

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
        const result = await callModel(options, { input, offer, messages, attempt, modelName });
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
