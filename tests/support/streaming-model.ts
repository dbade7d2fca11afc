import { simulateReadableStream } from "ai";
import { MockLanguageModelV2 } from "ai/test";

// A model for tests that answers the same script at once (doGenerate) or streamed in chunks of a few
// characters (doStream): it reads a note (notes.read), then completes.

type StreamPart =
  Awaited<ReturnType<MockLanguageModelV2["doStream"]>>["stream"] extends ReadableStream<infer P> ? P : never;
type GenerateResult = Awaited<ReturnType<MockLanguageModelV2["doGenerate"]>>;
type CallOptions = MockLanguageModelV2["doGenerateCalls"][number];

const USAGE = { inputTokens: 500, outputTokens: 40, totalTokens: 540 };

function promptText(options: CallOptions): string {
  return options.prompt
    .map((m) =>
      typeof m.content === "string" ? m.content : m.content.map((p) => ("text" in p ? p.text : "")).join("\n"),
    )
    .join("\n");
}

/** The script: what the model says and which tool it calls, from what the prompt shows. */
export function answerTo(options: CallOptions): { text: string; tool: string; input: unknown } {
  const prompt = promptText(options);
  if (/- note \[observation/.test(prompt))
    return { text: "The note is read; done.", tool: "complete", input: { output: { read: true } } };
  return {
    text: "I will read the note first.",
    tool: "notes_read",
    input: { args: { noteId: "n-1" }, reasoning: "read the note", evidence: [], resultKey: "note" },
  };
}

/** Splits text into pieces of `size` characters: what a provider streams. */
const pieces = (text: string, size: number) => text.match(new RegExp(`[\\s\\S]{1,${size}}`, "g")) ?? [];

/** The scripted model both ways: doGenerate at once, doStream in chunks of a few characters. */
export function streamingModel() {
  return new MockLanguageModelV2({
    provider: "mock",
    modelId: "streaming",
    doGenerate: async (options): Promise<GenerateResult> => {
      const a = answerTo(options);
      return {
        content: [
          { type: "text", text: a.text },
          { type: "tool-call", toolCallId: "call-1", toolName: a.tool, input: JSON.stringify(a.input) },
        ],
        finishReason: "tool-calls",
        usage: USAGE,
        warnings: [],
      };
    },
    doStream: async (options) => {
      const a = answerTo(options);
      const input = JSON.stringify(a.input);
      const chunks: StreamPart[] = [
        { type: "stream-start", warnings: [] },
        { type: "text-start", id: "t1" },
        ...pieces(a.text, 4).map((delta): StreamPart => ({ type: "text-delta", id: "t1", delta })),
        { type: "text-end", id: "t1" },
        { type: "tool-input-start", id: "call-1", toolName: a.tool },
        ...pieces(input, 8).map((delta): StreamPart => ({ type: "tool-input-delta", id: "call-1", delta })),
        { type: "tool-input-end", id: "call-1" },
        { type: "tool-call", toolCallId: "call-1", toolName: a.tool, input },
        { type: "finish", finishReason: "tool-calls", usage: USAGE },
      ];
      return { stream: simulateReadableStream({ chunks, chunkDelayInMs: null }) };
    },
  });
}
