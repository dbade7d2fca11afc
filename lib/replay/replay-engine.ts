import { randomUUID } from "node:crypto";
import { z } from "zod";
import type { AgentDefinition, RuntimeStore, ToolDefinition } from "@/lib/runtime";
import type { DefinedAgent } from "@/lib/sdk";
import { createTether } from "@/lib/tether";
import { readRecording, selectRuns, type RunSelection } from "./recording";
import { recordedWorld, replayAgent } from "./recorded-world";
import { replayRun, type RunReplay, type ScratchEngine } from "./replay-run";
import { createScratchDb } from "./scratch-db";

// `tether replay`: recorded runs of an agent, re-driven one by one through the current code in a scratch
// engine, offline — the current agent's policy, tools as the current code declares them answering from
// the recording, the current agent's default permissions — and compared action by action.

export type ReplayOptions = {
  /** Where the recorded runs are read: the deployment's store, or one a backup file was imported into. */
  source: RuntimeStore;
  /** The agent as the current code defines it (its default permissions are the rules the replay checks). */
  agent: DefinedAgent;
  /** The current code's tools (their schemas, semantics and capabilities; never called). */
  tools: ToolDefinition[];
  selection: Omit<RunSelection, "agentSlug">;
  /** A model is configured: where a model's recorded decisions stop matching, the agent's policy decides. */
  withModel?: boolean;
  /** Run ids allowed to differ (a change meant to alter them). */
  allow?: string[];
  onRun?: (replay: RunReplay) => void;
};

export type ReplaySummary = {
  replayed: number;
  same: number;
  differ: number;
  needsModel: number;
  allowed: number;
  missing: string[];
};
export type ReplayReport = { agent: string; version: string; runs: RunReplay[]; summary: ReplaySummary; ok: boolean };

export async function replayAgentRuns(opts: ReplayOptions): Promise<ReplayReport> {
  const definition = opts.agent.definition;
  const ids = await selectRuns(opts.source, { ...opts.selection, agentSlug: definition.slug });
  const scratch = createScratchDb();
  try {
    const engine = await scratchEngine(scratch.db, definition, opts);
    const runs: RunReplay[] = [];
    const missing: string[] = [];
    for (const id of ids) {
      const recording = await readRecording(opts.source, id);
      if (!recording || recording.run.agentSlug !== definition.slug) {
        missing.push(id);
        continue;
      }
      const replay = await replayRun(engine, opts.source, recording);
      runs.push(replay);
      opts.onRun?.(replay);
    }
    const allow = new Set(opts.allow ?? []);
    const count = (verdict: RunReplay["verdict"]) => runs.filter((r) => r.verdict === verdict).length;
    const allowed = runs.filter((r) => r.verdict !== "same" && allow.has(r.runId)).length;
    const summary = {
      replayed: runs.length,
      same: count("same"),
      differ: count("differs"),
      needsModel: count("needs_model"),
      allowed,
      missing,
    };
    return {
      agent: definition.slug,
      version: definition.version,
      runs,
      summary,
      ok: runs.every((r) => r.verdict === "same" || allow.has(r.runId)) && missing.length === 0,
    };
  } finally {
    await scratch.close();
  }
}

async function scratchEngine(
  db: Parameters<typeof createTether>[0]["db"],
  definition: AgentDefinition,
  opts: ReplayOptions,
): Promise<ScratchEngine> {
  const world = recordedWorld(opts.tools);
  const needsModel = { value: false, modelDecided: false };
  let now = new Date();
  // The recorded run's packet ids, handed out in order: a decision's fact is keyed by its packet, and the
  // policy input's digest covers fact keys, so the same gate must have the same id on both sides.
  const packetIds: string[] = [];
  const ids = {
    id: (prefix: string) =>
      prefix === "pkt" && packetIds.length > 0 ? packetIds.shift()! : `${prefix}_${randomUUID().replaceAll("-", "")}`,
  };
  const agent = replayAgent(definition, {
    withModel: opts.withModel ?? false,
    onNeedsModel: () => {
      needsModel.value = true;
    },
    modelDecided: () => needsModel.modelDecided,
  });
  // A spawn is answered from the recording: each agent the replayed one may start is a stand-in that ends as
  // the recorded child did, in the order the recorded run's children ended.
  const childOutcomes: RecordedChild[] = [];
  const children = (definition.spawns ?? []).map((slug) => recordedChildAgent(slug, childOutcomes));
  const { runtime } = createTether({
    db,
    agents: [agent, ...children],
    tools: world.tools,
    registeredTools: false,
    clock: { now: () => now },
    ids,
    retryBaseDelayMs: 0,
  });
  for (const rule of opts.agent.defaultPermissions)
    await runtime.permissions.put({ ...rule, agent: definition.slug }, { by: "replay" });
  return {
    runtime,
    world,
    needsModel,
    agent,
    clock: {
      set: (d) => {
        now = d;
      },
    },
    packetIds: {
      set: (list) => {
        packetIds.splice(0, packetIds.length, ...list);
      },
    },
    childOutcomes: {
      set: (list) => {
        childOutcomes.splice(0, childOutcomes.length, ...list);
      },
    },
  };
}

type RecordedChild = { status: string; output?: unknown; error?: string | null };

/** An agent that ends as the next recorded child did (COMPLETED with its output, else failed with its error). */
function recordedChildAgent(slug: string, outcomes: RecordedChild[]): AgentDefinition {
  return {
    slug,
    version: "recorded",
    name: slug,
    description: "A recorded child run, answered from the recording",
    instructions: "",
    input: z.unknown(),
    tools: [],
    policy: {
      decide: async () => {
        const next = outcomes.shift();
        if (!next) return { decision: { kind: "fail", reason: "the recording has no child run here" } };
        if (next.status !== "COMPLETED")
          return { decision: { kind: "fail", reason: next.error ?? `the recorded child ended ${next.status}` } };
        return { decision: { kind: "complete", output: (next.output ?? null) as never } };
      },
    },
  };
}
