import { randomUUID } from "node:crypto";
import type { Db } from "@/lib/db";
import type { EvalRunSummary } from "@/lib/queries/eval-records";
import type { Dimension } from "./spec";
import type { EvalRunStatus, EvalScores, TrialResult } from "./types";

// Writes of the eval harness: an eval run is created RUNNING, gets one result per trial as it goes
// (so a crashed eval still shows what it did), and is finished with its aggregate scores.

export const newEvalId = (prefix: string) => `${prefix}_${randomUUID().replaceAll("-", "").slice(0, 20)}`;

export async function createEvalRun(
  db: Db,
  run: Pick<
    EvalRunSummary,
    | "datasetId"
    | "datasetName"
    | "datasetVersion"
    | "codeVersion"
    | "agentVersions"
    | "policy"
    | "faults"
    | "caseFilter"
  > & { thresholds: Record<Dimension, number> },
): Promise<string> {
  const id = newEvalId("evr");
  await db.evalRun.create({
    data: {
      id,
      datasetId: run.datasetId,
      datasetName: run.datasetName,
      datasetVersion: run.datasetVersion,
      codeVersion: run.codeVersion,
      agentVersions: JSON.stringify(run.agentVersions),
      policy: run.policy,
      faults: run.faults,
      caseFilter: run.caseFilter,
      status: "RUNNING",
      thresholds: JSON.stringify(run.thresholds),
    },
  });
  return id;
}

export async function saveTrialResult(db: Db, evalRunId: string, result: TrialResult): Promise<void> {
  await db.evalResult.create({
    data: {
      id: newEvalId("evres"),
      evalRunId,
      caseId: result.caseId,
      agent: result.agent,
      fault: result.fault,
      passed: result.passed,
      scores: JSON.stringify(result.scores),
      checks: JSON.stringify(result.checks),
      runId: result.runId,
      runStatus: result.runStatus,
      trace: JSON.stringify(result.trace),
      ledger: JSON.stringify(result.ledger),
      output: result.output === undefined ? null : JSON.stringify(result.output),
      tokens: result.tokens,
      costUsd: result.costUsd,
      wallMs: Math.round(result.wallMs),
      humanWaitMs: Math.round(result.humanWaitMs),
      machineMs: Math.round(result.machineMs),
      error: result.error,
      position: result.position,
    },
  });
}

export async function finishEvalRun(
  db: Db,
  id: string,
  done: {
    status: EvalRunStatus;
    scores: EvalScores | null;
    failures: string[];
    caseCount: number;
    trialCount: number;
    passedCount: number;
    durationMs: number;
    reportPath: string | null;
    error?: string | null;
  },
): Promise<void> {
  await db.evalRun.update({
    where: { id },
    data: {
      status: done.status,
      scores: JSON.stringify(done.scores ?? {}),
      failures: JSON.stringify(done.failures),
      caseCount: done.caseCount,
      trialCount: done.trialCount,
      passedCount: done.passedCount,
      durationMs: Math.round(done.durationMs),
      reportPath: done.reportPath,
      error: done.error ?? null,
      finishedAt: new Date(),
    },
  });
}

export async function setEvalReportPath(db: Db, id: string, reportPath: string): Promise<void> {
  await db.evalRun.update({ where: { id }, data: { reportPath } });
}
