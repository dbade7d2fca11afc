import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import type { LanguageModel } from "ai";
import { getConfig, type Config, type ModelPricing } from "@/lib/config";

// Which model an agent's model policy talks to, from the environment:
//   TETHER_MODEL=openai:<model>     OPENAI_API_KEY, optional OPENAI_BASE_URL (any OpenAI-compatible
//                                   endpoint: the chat-completions API is used, which they all speak)
//   TETHER_MODEL=anthropic:<model>  ANTHROPIC_API_KEY, optional ANTHROPIC_BASE_URL
//   TETHER_MODEL unset or empty     no model: agents keep their scripted policies
//   TETHER_MODEL_PRICING=<in>,<out> optional USD per million input/output tokens, for cost per step

export type { ModelPricing };

/** The model TETHER_MODEL names, or null when it is unset (lib/config.ts checks the value and its key). */
export function modelFromEnv(config: Config = getConfig()): LanguageModel | null {
  const { spec, openai, anthropic } = config.model;
  if (!spec) return null;
  if (spec.provider === "openai") {
    // A self-hosted OpenAI-compatible endpoint may not need a key (lib/config.ts requires one for api.openai.com).
    return createOpenAI({
      apiKey: openai.apiKey || "not-needed",
      ...(openai.baseURL ? { baseURL: openai.baseURL } : {}),
    }).chat(spec.modelId);
  }
  return createAnthropic({ apiKey: anthropic.apiKey, ...(anthropic.baseURL ? { baseURL: anthropic.baseURL } : {}) })(
    spec.modelId,
  );
}

/** TETHER_MODEL_PRICING="<input USD per 1M tokens>,<output USD per 1M tokens>", or undefined when unset. */
export function pricingFromEnv(config: Config = getConfig()): ModelPricing | undefined {
  return config.model.pricing;
}

/** "openai:gpt-4.1-mini" for a model object, for logs and the trace. */
export function describeModel(model: LanguageModel): string {
  return typeof model === "string" ? model : `${model.provider}:${model.modelId}`;
}
