import type { Dimension, Expectations } from "@/lib/evals/spec";
import type { EvalRunStatus } from "@/lib/evals/types";

// Pure formatting for the Evals pages (no React, no server imports): scores, money, durations,
// pass/fail against a threshold, and one-line summaries of a case's expectations. Unit-tested.

export const DIMENSION_LABELS: Record<Dimension, string> = {
  completion: "Completion",
  toolSelection: "Tool selection",
  stateAccuracy: "State accuracy",
  recovery: "Recovery",
  approvalCompliance: "Approval compliance",
  cost: "Cost",
  latency: "Latency",
};

/** A 0..1 score as a percentage with at most one decimal; null (not applicable) as an em dash. */
export function formatScore(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return "—";
  const percent = Math.round(value * 1000) / 10;
  return `${percent}%`;
}

/** The change between two scores in percentage points, signed ("+5 pt", "−2.5 pt", "±0 pt"). */
export function formatScoreDelta(before: number | null | undefined, after: number | null | undefined): string {
  if (before === null || before === undefined || after === null || after === undefined)
    return before === after ? "" : "n/a";
  const points = Math.round((after - before) * 1000) / 10;
  if (points === 0) return "±0 pt";
  return `${points > 0 ? "+" : "−"}${Math.abs(points)} pt`;
}

export type ThresholdState = "pass" | "fail" | "n/a";

/** A score against its threshold: no threshold or no score means nothing to judge. */
export function judgeScore(value: number | null | undefined, threshold: number | null | undefined): ThresholdState {
  if (value === null || value === undefined || threshold === null || threshold === undefined) return "n/a";
  // Scores are averages of floats: a hair under the threshold from rounding is not a failure.
  return value + 1e-9 >= threshold ? "pass" : "fail";
}

/** Milliseconds for people: "840 ms", "12.4 s", "3 min 05 s", "2 h 01 min". */
export function formatMs(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return "—";
  const value = Math.max(0, Math.round(ms));
  if (value < 1_000) return `${value} ms`;
  if (value < 60_000) return `${(Math.round(value / 100) / 10).toFixed(1)} s`;
  if (value < 3_600_000) {
    const minutes = Math.floor(value / 60_000);
    const seconds = Math.floor((value % 60_000) / 1_000);
    return `${minutes} min ${String(seconds).padStart(2, "0")} s`;
  }
  const hours = Math.floor(value / 3_600_000);
  const minutes = Math.floor((value % 3_600_000) / 60_000);
  return `${hours} h ${String(minutes).padStart(2, "0")} min`;
}

/** Dollars: cents precision from one cent up, four decimals below (model calls cost fractions of a cent). */
export function formatUsd(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return "—";
  if (value === 0) return "$0";
  return value >= 0.01 ? `$${value.toFixed(2)}` : `$${value.toFixed(4)}`;
}

export function formatCount(value: number | null | undefined): string {
  return value === null || value === undefined ? "—" : value.toLocaleString("en-US");
}

/** The share of wall time spent waiting for people, 0..1 (0 when nothing ran). */
export function humanShare(humanWaitMs: number, machineMs: number): number {
  const total = humanWaitMs + machineMs;
  return total > 0 ? humanWaitMs / total : 0;
}

export const EVAL_STATUS_TONES: Record<EvalRunStatus, "blue" | "green" | "red" | "orange"> = {
  RUNNING: "blue",
  PASSED: "green",
  FAILED: "red",
  ERROR: "orange",
};

/** The category of a trace event ("gate.requested" → "gate"), which picks its colour in the timeline. */
export function eventCategory(type: string): string {
  const dot = type.indexOf(".");
  return dot > 0 ? type.slice(0, dot) : type;
}

/** Milliseconds between a trace event and the first one, as "+1.2 s" (the timeline's time axis). */
export function formatOffset(at: string, start: string): string {
  const ms = new Date(at).getTime() - new Date(start).getTime();
  return Number.isFinite(ms) ? `+${formatMs(ms)}` : "";
}

/** One line per kind of expectation, for the cases table and the case page's summary. */
export function summarizeExpectations(expect: Expectations): string[] {
  const statuses = Array.isArray(expect.status) ? expect.status : [expect.status];
  const lines = [`ends ${statuses.join(" or ")}`];
  const checks = expect.output.length + expect.state.length;
  if (checks > 0) lines.push(`${checks} check${checks === 1 ? "" : "s"}`);
  if (expect.tools.must.length > 0) lines.push(`uses ${expect.tools.must.join(", ")}`);
  if (expect.tools.mustNot.length > 0) lines.push(`never uses ${expect.tools.mustNot.join(", ")}`);
  if (expect.approvals.length > 0) lines.push(`approval for ${expect.approvals.join(", ")}`);
  if (expect.never.length > 0)
    lines.push(`forbids ${expect.never.map((e) => (e.action ? `${e.system}.${e.action}` : e.system)).join(", ")}`);
  const budgets = Object.entries(expect.budgets).filter(([, v]) => v !== undefined);
  if (budgets.length > 0) lines.push(`budgets: ${budgets.map(([k]) => k).join(", ")}`);
  return lines;
}

/** A budget value in its unit, for the case page. */
export function formatBudget(name: string, value: number): string {
  if (name === "costUsd") return formatUsd(value);
  if (name.endsWith("Ms")) return formatMs(value);
  return formatCount(value);
}

/** A git sha is 40 characters; 12 identify it (a "-dirty" suffix is kept). */
export function shortCode(codeVersion: string): string {
  const [sha, ...rest] = codeVersion.split("-");
  return /^[0-9a-f]{13,}$/.test(sha) ? [sha.slice(0, 12), ...rest].join("-") : codeVersion;
}
