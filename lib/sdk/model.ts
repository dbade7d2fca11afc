import type { LanguageModel } from "ai"; // a type only
import type { Policy } from "@/lib/runtime";
import type { ModelPricing } from "@/lib/agents/model-provider";

// An agent that thinks with a model (lib/agents/model-policy.ts). The AI SDK is slow to import, so it is
// loaded when such an agent first decides — never by merely defining or listing agents.

export type ModelSettings = {
  /** The model; default: the one TETHER_MODEL names (openai:<model> or anthropic:<model>). */
  model?: LanguageModel;
  /** USD per million tokens; default TETHER_MODEL_PRICING. */
  pricing?: ModelPricing;
  temperature?: number;
  maxOutputTokens?: number;
  /** Extra attempts when the model answers without a usable tool call (default 1). */
  retries?: number;
  /** Per model call (default 120 s). */
  timeoutMs?: number;
};

export function lazyModelPolicy(slug: string, settings: ModelSettings): Policy {
  let built: Promise<Policy> | undefined;
  const build = async (): Promise<Policy> => {
    const [{ createModelPolicy }, { modelFromEnv, pricingFromEnv }] = await Promise.all([
      import("@/lib/agents/model-policy"),
      import("@/lib/agents/model-provider"),
    ]);
    const model = settings.model ?? modelFromEnv();
    if (!model)
      throw new Error(
        `${slug} thinks with a model and none is configured: set TETHER_MODEL (e.g. openai:gpt-4.1-mini) and its API key (docs/agents.md)`,
      );
    // The engine offers the tools the agent may use, with their input schemas, at every step.
    return createModelPolicy({ ...settings, model, pricing: settings.pricing ?? pricingFromEnv(), tools: [] });
  };
  return {
    async decide(input) {
      built ??= build().catch((error: unknown) => {
        built = undefined;
        throw error;
      });
      return (await built).decide(input);
    },
  };
}
