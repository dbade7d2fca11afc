import { readFileSync, writeFileSync } from "node:fs";
import { createDb, defaultDatabaseUrl } from "@/lib/db";
import { createPrismaStore } from "@/lib/store/prisma-store";
import { openBackupSource } from "./backup-source";
import { currentAgent, replayableSlugs } from "./current-agent";
import { replayAgentRuns } from "./replay-engine";
import { formatReplayReport, formatRunReplay } from "./report";

// The command line of a replay, shared by `tether replay` and `npm run eval -- --replay`: parses the flags,
// opens the recordings (this deployment's database, or a backup file), prints each run as it is replayed
// and the summary; resolves to the exit code (0 every run acts alike or is allowed, 1 otherwise, 2 usage).

export type ReplayFlags = {
  agent?: string;
  since?: string;
  runs?: string;
  dataset?: string;
  limit?: string;
  allow?: string;
  json?: string;
};

/** The replay's flags as node:util's parseArgs takes them: every one a string. */
export const REPLAY_OPTIONS = {
  agent: { type: "string" },
  since: { type: "string" },
  runs: { type: "string" },
  dataset: { type: "string" },
  limit: { type: "string" },
  allow: { type: "string" },
  json: { type: "string" },
} as const satisfies Record<keyof ReplayFlags, { type: "string" }>;

export const REPLAY_USAGE =
  "replay --agent <slug> [--since 7d | --runs <id,…> | --dataset <backup.jsonl>] [--limit N] [--allow <file>] [--json <file>]";

/** "7d", "12h", "30m" before now, or a date. */
export function parseSince(value: string, now = new Date()): Date {
  const relative = /^(\d+)\s*([dhm])$/.exec(value.trim());
  if (relative)
    return new Date(
      now.getTime() - Number(relative[1]) * { d: 86_400_000, h: 3_600_000, m: 60_000 }[relative[2] as "d" | "h" | "m"],
    );
  const date = new Date(value);
  if (Number.isNaN(date.getTime()))
    throw new Error(`--since ${value}: give a duration (7d, 12h, 30m) or a date (2026-12-01)`);
  return date;
}

/** The allowed list: a run id per line (what follows it on the line, and lines starting with #, are comments). */
export function parseAllowList(text: string): string[] {
  return text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith("#"))
    .map((line) => line.split(/\s+/)[0]);
}

export async function replayCommand(flags: ReplayFlags, out: (line: string) => void = console.log): Promise<number> {
  if (!flags.agent) {
    out(`usage: ${REPLAY_USAGE}`);
    return 2;
  }
  const current = await currentAgent(flags.agent);
  if (!current) {
    out(`replay: no agent "${flags.agent}" in this code (agents: ${replayableSlugs().join(", ")})`);
    return 2;
  }
  const limit = flags.limit === undefined ? 100 : Number(flags.limit);
  if (!Number.isInteger(limit) || limit < 1) {
    out("replay: --limit must be a positive whole number");
    return 2;
  }
  const allow = flags.allow ? parseAllowList(readFileSync(flags.allow, "utf8")) : [];
  const selection = {
    limit,
    ...(flags.runs
      ? {
          runIds: flags.runs
            .split(",")
            .map((s) => s.trim())
            .filter(Boolean),
        }
      : {}),
    ...(flags.since ? { since: parseSince(flags.since) } : {}),
  };

  const source = flags.dataset
    ? await openBackupSource(flags.dataset)
    : (() => {
        const db = createDb(defaultDatabaseUrl());
        return { store: createPrismaStore(db), close: () => db.$disconnect() };
      })();
  try {
    out(
      `replaying ${flags.agent}'s runs from ${flags.dataset ?? "the database"}${current.withModel ? " (a model decides where the recorded decisions stop matching)" : ""}`,
    );
    const report = await replayAgentRuns({
      source: source.store,
      agent: current.agent,
      tools: current.tools,
      selection,
      withModel: current.withModel,
      allow,
      onRun: (run) => out(formatRunReplay(run)),
    });
    out(
      formatReplayReport(report, allow)
        .split("\n")
        .slice(1 + report.runs.length)
        .join("\n"),
    );
    if (flags.json) writeFileSync(flags.json, JSON.stringify(report, null, 2));
    return report.ok ? 0 : 1;
  } finally {
    await source.close();
  }
}
