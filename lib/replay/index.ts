// Replay: recorded runs re-driven through the current code, offline, compared action by action (docs/agents.md).
export { actionsOf, diffArgs, firstDifference, type FirstDifference, type ReplayAction } from "./actions";
export { openBackupSource } from "./backup-source";
export { readRecording, selectRuns, type Recording, type RunSelection } from "./recording";
export { replayAgentRuns, type ReplayOptions, type ReplayReport, type ReplaySummary } from "./replay-engine";
export type { RunReplay, ReplayVerdict } from "./replay-run";
export { formatReplayReport, formatRunReplay, summaryLine } from "./report";
export { MAX_CONSOLE_REPLAY, replaySummary, type DifferingRun, type VersionReplaySummary } from "./version-replay";
