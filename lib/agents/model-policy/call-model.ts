import { generateText, type LanguageModelUsage, type ModelMessage } from "ai";
import type { PolicyInput } from "@/lib/runtime";
import { renderSystem, type Offer } from "../model-prompt";
import type { ModelPolicyOptions } from "./options";
import { streamAnswer } from "./stream-answer";

// One model call of a turn: the state and the offered tools, one tool call required, within the options' limits.
// Streamed when there is a token sink (./stream-answer.ts), else at once with generateText; both answers read the same.

export type ModelCall = Parameters<typeof generateText>[0] & { tools: Offer["tools"] };
/** What decide reads of an answer, the same whether it was streamed or not. */
export type ModelAnswer = Pick<
  Awaited<ReturnType<typeof generateText>>,
  "content" | "text" | "finishReason" | "usage"
> & {
  totalUsage?: LanguageModelUsage;
};

export async function callModel(
  options: ModelPolicyOptions,
  turn: { input: PolicyInput; offer: Offer; messages: ModelMessage[]; attempt: number; modelName: string },
): Promise<ModelAnswer> {
  const { input, attempt } = turn;
  const call: ModelCall = {
    model: options.model,
    system: renderSystem(input),
    messages: turn.messages,
    tools: turn.offer.tools,
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
    return sink ? await streamAnswer(call, sink) : await generateText(call);
  } catch (error) {
    throw new Error(
      `the model ${turn.modelName} could not be called: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
}
