import { canonicalJson } from "@/lib/runtime";
import type { ReplayAction } from "./actions";
import type { ReplayReport, ReplaySummary } from "./replay-engine";
import type { RunReplay } from "./replay-run";

// How a replay reads in a terminal and a CI log: a line per run, the first difference with both sides,
// then the summary — laid out like the journey evals' report.

export const short = (value: unknown, max = 120) => {
  const s = canonicalJson(value ?? null);
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
};

/** One side of a difference: the call, its permission, whether a person was asked (and said what), how it ended. */
export function side(action: ReplayAction | null): string {
  if (!action) return "(nothing: the run had ended or stopped)";
  const call = action.tool ? `${action.decision} ${action.tool}` : action.decision;
  const gate = action.gate ? `gate: yes${action.review ? ` → ${action.review}` : ""}` : "gate: no";
  return `${call} · permission: ${action.permission ?? "—"} · ${gate} · outcome: ${action.outcome ?? "—"}`;
}

export function formatRunReplay(run: RunReplay): string {
  if (run.verdict === "same") return `  same     ${run.runId}  ${run.actions} actions, ${run.recordedStatus}`;
  const head =
    run.verdict === "needs_model"
      ? `  model?   ${run.runId}  needs a model from step ${run.difference?.step ?? "?"}: the recorded decisions stop matching there`
      : `  DIFFERS  ${run.runId}  first at step ${run.difference?.step ?? "?"} (${run.difference?.fields.join(", ") ?? "status"}); recorded ${run.recordedStatus}, replayed ${run.replayedStatus}`;
  const lines = [head];
  const d = run.difference;
  if (d && run.verdict === "differs") {
    lines.push(`           recorded: ${side(d.recorded)}`, `           replayed: ${side(d.replayed)}`);
    for (const change of d.argsDiff)
      lines.push(`           args ${change.path}: ${short(change.recorded)} → ${short(change.replayed)}`);
  }
  if (run.stopped) lines.push(`           (${run.stopped})`);
  return lines.join("\n");
}

/** "replayed 20 runs: 17 same, 3 differ": the line the terminal, CI and the console's Agents page end with. */
export function summaryLine(s: ReplaySummary): string {
  return `replayed ${s.replayed} runs: ${s.same} same, ${s.differ} differ${s.needsModel ? `, ${s.needsModel} need a model` : ""}${s.allowed ? ` (${s.allowed} allowed by --allow)` : ""}`;
}

export function formatReplayReport(report: ReplayReport, allow: string[] = []): string {
  const s = report.summary;
  const lines = [
    `replay ${report.agent} (current version ${report.version})`,
    ...report.runs.map(formatRunReplay),
    "",
    summaryLine(s),
    ...(s.missing.length ? [`not found (or another agent's): ${s.missing.join(", ")}`] : []),
    report.ok
      ? "PASSED"
      : `FAILED: ${report.runs.filter((r) => r.verdict !== "same" && !allow.includes(r.runId)).length} runs act differently${allow.length ? " beyond the allowed list" : ""}`,
  ];
  return lines.join("\n");
}
