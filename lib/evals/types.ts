import type { LedgerEntry } from "@/lib/sandbox/ledger";
import type { CheckResult, Dimension, Scores } from "./spec";

// What a trial (one case under one fault) and an eval run produce. Stored as JSON text by records.ts,
// read back by queries.ts.

/** A trace event as kept with a result: the eval's agent runs live in a throwaway database. */
export type TraceEventSummary = { seq: number; step: number; type: string; at: string; data: Record<string, unknown> };

/** A row of the trial's sandbox ledger (what the world applied), kept with its result. */
export type LedgerRow = LedgerEntry;

export type TrialResult = {
  caseId: string;
  agent: string;
  fault: string;
  passed: boolean;
  scores: Scores;
  checks: CheckResult[];
  runId: string | null;
  runStatus: string | null;
  trace: TraceEventSummary[];
  ledger: LedgerRow[];
  output: unknown;
  tokens: number;
  costUsd: number;
  wallMs: number;
  humanWaitMs: number;
  machineMs: number;
  error: string | null;
  position: number;
};

/** Aggregate figures of an eval run, next to the per-dimension scores. */
export type EvalFigures = {
  trials: number;
  passed: number;
  cases: number;
  tokens: number;
  costUsd: number;
  wallMs: number;
  humanWaitMs: number;
  machineMs: number;
  p50MachineMs: number;
  p95MachineMs: number;
};

export type EvalScores = Record<Dimension, number | null> & { figures: EvalFigures };

export type EvalRunStatus = "RUNNING" | "PASSED" | "FAILED" | "ERROR";
