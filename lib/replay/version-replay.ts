import { AppError, type RunStatus, type RuntimeStore } from "@/lib/runtime";
import { currentAgent, type CurrentAgent } from "./current-agent";
import { replayAgentRuns } from "./replay-engine";
import type { ReplayVerdict } from "./replay-run";
import { short, side, summaryLine } from "./report";

// The console's replay of one version (the admin Agents page): that version's most recent runs that ended
// by what they did, re-driven through the current code as `tether replay` does, told as the terminal tells
// it — a summary line and, for each run that acts differently, its first difference with both sides.

/** Runs that ended by what they did; a cancelled run ended by a person's hand, which a replay cannot repeat. */
const FINISHED: RunStatus[] = ["COMPLETED", "FAILED"];

export const MAX_CONSOLE_REPLAY = 20;

export type DifferingRun = {
  runId: string;
  verdict: Exclude<ReplayVerdict, "same">;
  recordedStatus: string;
  replayedStatus: string;
  /** The step of the first action taken differently, and which of its parts differ (tool, args, permission, gate…). */
  step: number | null;
  fields: string[];
  recorded: string;
  replayed: string;
  argsDiff: Array<{ path: string; recorded: string; replayed: string }>;
  stopped: string | null;
};

export type VersionReplaySummary = {
  agent: string;
  /** The version whose recorded runs were replayed, and the current code's version they were replayed on. */
  version: string;
  currentVersion: string;
  replayed: number;
  same: number;
  differ: number;
  needsModel: number;
  /** "replayed 20 runs: 17 same, 3 differ". */
  line: string;
  differing: DifferingRun[];
};

export type ReplaySummaryOptions = {
  source: RuntimeStore;
  slug: string;
  version: string;
  limit?: number;
  /** The agent as the current code runs it (default: this deployment's, lib/replay/current-agent.ts). */
  current?: CurrentAgent;
};

// One console replay at a time in a process: each takes seconds of CPU beside the worker stepping real
// runs, and a second click (or a second admin) should wait for the first rather than double the load.
let replaying = false;

export async function replaySummary(opts: ReplaySummaryOptions): Promise<VersionReplaySummary> {
  if (replaying)
    throw new AppError("CONFLICT", {
      message: "a console replay is running",
      userMessage: "A replay is running already; try again when it has finished.",
    });
  replaying = true;
  try {
    return await summarize(opts);
  } finally {
    replaying = false;
  }
}

async function summarize(opts: ReplaySummaryOptions): Promise<VersionReplaySummary> {
  const current = opts.current ?? (await currentAgent(opts.slug));
  if (!current || current.agent.definition.slug !== opts.slug) {
    throw new AppError("NOT_FOUND", {
      message: `agent ${opts.slug} is not in this code`,
      userMessage: `This deployment does not run ${opts.slug}: there is no current code to replay its runs on.`,
    });
  }
  const limit = Math.min(opts.limit ?? MAX_CONSOLE_REPLAY, MAX_CONSOLE_REPLAY);
  const report = await replayAgentRuns({
    source: opts.source,
    agent: current.agent,
    tools: current.tools,
    withModel: current.withModel,
    selection: { version: opts.version, statuses: FINISHED, limit },
  });
  const differing = report.runs.flatMap((run): DifferingRun[] => {
    if (run.verdict === "same") return [];
    const d = run.difference;
    return [
      {
        runId: run.runId,
        verdict: run.verdict,
        recordedStatus: run.recordedStatus,
        replayedStatus: run.replayedStatus,
        step: d?.step ?? null,
        fields: d?.fields ?? [],
        recorded: side(d?.recorded ?? null),
        replayed: side(d?.replayed ?? null),
        argsDiff: (d?.argsDiff ?? []).map((c) => ({
          path: c.path,
          recorded: short(c.recorded),
          replayed: short(c.replayed),
        })),
        stopped: run.stopped,
      },
    ];
  });
  const s = report.summary;
  return {
    agent: opts.slug,
    version: opts.version,
    currentVersion: report.version,
    replayed: s.replayed,
    same: s.same,
    differ: s.differ,
    needsModel: s.needsModel,
    line: summaryLine(s),
    differing,
  };
}
