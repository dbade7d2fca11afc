import {
  canonicalJson,
  ToolError,
  type AgentDefinition,
  type ToolDefinition,
  type ToolErrorClass,
} from "@/lib/runtime";
import type { Recording } from "./recording";

// The seam between a replay and the engine: the engine runs unchanged, with tools that answer from what
// the recorded run was told, and a policy that asks a model only where one is available. Nothing here
// reaches the world: a call the recording never made is refused (not applied), which the comparison
// then shows as the first step that differs.

type Answer =
  | { ok: true; value: unknown }
  | { ok: false; errorClass: ToolErrorClass; message: string; outcome: "not_applied" | "unknown" };

/** What the world answered each call of the recording, by tool and arguments, every attempt in order. */
export function recordedAnswers(recording: Recording): Map<string, Answer[]> {
  const answers = new Map<string, Answer[]>();
  for (const event of recording.events) {
    if (event.type !== "tool.call" || typeof event.data.tool !== "string") continue;
    const key = callKey(event.data.tool, event.data.args);
    const data = event.data;
    const answer: Answer =
      data.error === undefined
        ? { ok: true, value: data.result ?? null }
        : {
            ok: false,
            errorClass: (data.errorClass as ToolErrorClass) ?? "internal",
            message: String(data.error),
            outcome: data.outcome === "not_applied" ? "not_applied" : "unknown",
          };
    answers.set(key, [...(answers.get(key) ?? []), answer]);
  }
  return answers;
}

const callKey = (tool: string, args: unknown) => `${tool} ${canonicalJson(args ?? null)}`;

export type RecordedWorld = {
  tools: ToolDefinition[];
  /** Answer the next calls from this recording (replays run one at a time). */
  use: (recording: Recording) => void;
  /** Calls the recording never made, since the last `use`. */
  readonly misses: Array<{ tool: string; args: unknown }>;
};

/** The tools as the current code declares them (schemas, semantics, capability), answering from the recording. */
export function recordedWorld(tools: ToolDefinition[]): RecordedWorld {
  let answers = new Map<string, Answer[]>();
  const taken = new Map<string, number>();
  const misses: Array<{ tool: string; args: unknown }> = [];
  const answer = (tool: string, args: unknown): Answer | null => {
    const key = callKey(tool, args);
    const list = answers.get(key);
    if (!list?.length) return null;
    const n = taken.get(key) ?? 0;
    taken.set(key, n + 1);
    return list[Math.min(n, list.length - 1)]; // more attempts than recorded: the last answer again
  };
  const replayed: ToolDefinition[] = tools.map((tool) => ({
    ...tool,
    async run(args: unknown) {
      const found = answer(tool.name, args);
      if (!found) {
        misses.push({ tool: tool.name, args });
        throw new ToolError(
          "rejected",
          `replay: the recorded run never called ${tool.name} with these arguments`,
          "not_applied",
        );
      }
      if (!found.ok) throw new ToolError(found.errorClass, found.message, found.outcome);
      return found.value;
    },
    ...(tool.lookup
      ? {
          lookup: async (args: unknown) => {
            const found = answer(tool.name, args);
            return found?.ok ? found.value : null;
          },
        }
      : {}),
  }));
  return {
    tools: replayed,
    use(recording) {
      answers = recordedAnswers(recording);
      taken.clear();
      misses.length = 0;
    },
    get misses() {
      return misses;
    },
  };
}

export class NeedsModelError extends Error {
  constructor(slug: string) {
    super(
      `replay: ${slug}'s recorded model decisions stop matching here, and no model is configured to decide in their place`,
    );
    this.name = "NeedsModelError";
  }
}

/**
 * The agent as a replay runs it. A scripted policy is the code under test: it always decides. A run a
 * model decided replays the model's recorded answers while the policy input's digest matches (the engine's
 * fork replay does that, lib/runtime/replay.ts); past that, the agent's policy decides only when a model
 * is configured (`withModel`); otherwise the replay stops there and says it needs one.
 */
export function replayAgent(
  agent: AgentDefinition,
  opts: { withModel: boolean; onNeedsModel: () => void; modelDecided: () => boolean },
): AgentDefinition {
  return {
    ...agent,
    policy: {
      decide(input) {
        if (opts.modelDecided() && !opts.withModel) {
          opts.onNeedsModel();
          return Promise.reject(new NeedsModelError(agent.slug));
        }
        return agent.policy.decide(input);
      },
    },
  };
}
