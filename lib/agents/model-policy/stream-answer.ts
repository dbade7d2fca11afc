import { streamText } from "ai";
import type { TokenSink } from "@/lib/live/live-feed";
import type { ModelAnswer, ModelCall } from "./call-model";

// The streamed path: with a token sink (the console's live feed), what the model writes is published under the
// run as it arrives; nothing of it is stored, and the answer is read exactly as generateText's.

/** streamText, publishing each piece of text and of a tool call's arguments as it arrives; the answer as generateText's. */
export async function streamAnswer(
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
