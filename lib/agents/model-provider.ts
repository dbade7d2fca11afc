import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import type { LanguageModel } from "ai";

// Which model an agent's model policy talks to, from the environment:
//   TETHER_MODEL=openai:<model>     OPENAI_API_KEY, optional OPENAI_BASE_URL (any OpenAI-compatible
//                                   endpoint: the chat-completions API is used, which they all speak)
//   TETHER_MODEL=anthropic:<model>  ANTHROPIC_API_KEY, optional ANTHROPIC_BASE_URL
//   TETHER_MODEL unset or empty     no model: agents keep their scripted policies
//   TETHER_MODEL_PRICING=<in>,<out> optional USD per million input/output tokens, for cost per step

type Env = Record<string, string | undefined>;

export type ModelPricing = { inputPerMTok: number; outputPerMTok: number };

const PROVIDERS = ["openai", "anthropic"] as const;

/** The model TETHER_MODEL names, or null when it is unset. A malformed value throws an Error naming the variable. */
export function modelFromEnv(env: Env = process.env): LanguageModel | null {
  const spec = env.TETHER_MODEL?.trim();
  if (!spec) return null;
  const match = /^([a-z]+):(\S+)$/.exec(spec);
  const provider = match?.[1] as (typeof PROVIDERS)[number] | undefined;
  if (!match || !provider || !PROVIDERS.includes(provider)) {
    throw new Error(`TETHER_MODEL must be "openai:<model>" or "anthropic:<model>" (for example openai:gpt-4.1-mini), got "${spec}"`);
  }
  const modelId = match[2];
  if (provider === "openai") {
    const baseURL = optionalUrl(env, "OPENAI_BASE_URL");
    const apiKey = env.OPENAI_API_KEY?.trim();
    // A self-hosted OpenAI-compatible endpoint may not need a key; api.openai.com always does.
    if (!apiKey && !baseURL) throw new Error(`TETHER_MODEL=${spec} needs OPENAI_API_KEY (or OPENAI_BASE_URL for an OpenAI-compatible endpoint that needs no key)`);
    return createOpenAI({ apiKey: apiKey || "not-needed", ...(baseURL ? { baseURL } : {}) }).chat(modelId);
  }
  const baseURL = optionalUrl(env, "ANTHROPIC_BASE_URL");
  const apiKey = env.ANTHROPIC_API_KEY?.trim();
  if (!apiKey) throw new Error(`TETHER_MODEL=${spec} needs ANTHROPIC_API_KEY`);
  return createAnthropic({ apiKey, ...(baseURL ? { baseURL } : {}) })(modelId);
}

/** TETHER_MODEL_PRICING="<input USD per 1M tokens>,<output USD per 1M tokens>", or undefined when unset. */
export function pricingFromEnv(env: Env = process.env): ModelPricing | undefined {
  const raw = env.TETHER_MODEL_PRICING?.trim();
  if (!raw) return undefined;
  const parts = raw.split(",").map((p) => p.trim());
  const [inputPerMTok, outputPerMTok] = parts.map(Number);
  if (parts.length !== 2 || parts.some((p) => p === "") || ![inputPerMTok, outputPerMTok].every((n) => Number.isFinite(n) && n >= 0)) {
    throw new Error(`TETHER_MODEL_PRICING must be "<input USD per 1M tokens>,<output USD per 1M tokens>" (for example 0.4,1.6), got "${raw}"`);
  }
  return { inputPerMTok, outputPerMTok };
}

/** "openai:gpt-4.1-mini" for a model object, for logs and the trace. */
export function describeModel(model: LanguageModel): string {
  return typeof model === "string" ? model : `${model.provider}:${model.modelId}`;
}

function optionalUrl(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  if (!value) return undefined;
  try {
    const url = new URL(value);
    if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error("not http(s)");
  } catch {
    throw new Error(`${name} must be an http(s) URL, got "${value}"`);
  }
  return value.replace(/\/+$/, "");
}
