// `tether replay` / `npm run eval -- --replay`: recorded runs re-driven through the current code, offline,
// compared action by action (lib/replay, docs/agents.md "Replay in CI").
//   --agent <slug>              the agent whose runs are replayed (as this code defines it)
//   --since 7d | <date>         its runs created since then (default: its newest runs)
//   --runs <id,…>               these runs
//   --dataset <backup.jsonl>    runs from an exported backup (`tether export`) instead of the database
//   --limit N                   at most N runs (default 100)
//   --allow <file>              run ids allowed to differ, one per line (# comments)
//   --json <file>               the full report as JSON
// Exits 0 when every run acts alike (or is allowed), 1 when any differs or needs a model, 2 on a usage error.
import { parseArgs } from "node:util";
import { REPLAY_OPTIONS, REPLAY_USAGE, replayCommand } from "../lib/replay/cli.ts";

const { values } = parseArgs({ options: REPLAY_OPTIONS });

replayCommand(values).then(
  (code) => process.exit(code),
  (error) => {
    console.error(`replay: ${error instanceof Error ? error.message : String(error)}\nusage: ${REPLAY_USAGE}`);
    process.exit(2);
  },
);
