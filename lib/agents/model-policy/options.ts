import type { LanguageModel } from "ai";
import type { ToolDefinition } from "@/lib/runtime";
import type { TokenSink } from "@/lib/live/live-feed";
import type { ModelPricing } from "../model-provider";

// How a model policy is configured (lib/agents/model-policy.ts says what it does).

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
