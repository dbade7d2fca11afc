// Small reads the Evals pages need beyond the evals storage API (lib/queries/eval-records.ts, which owns
// everything else): a light progress read for polling a running eval — getEvalRun would ship every
// trial's trace on every poll — and a NOT_FOUND → null adapter for pages.
import { getDb, type Db } from "@/lib/db";
import type { EvalRunStatus } from "@/lib/evals/types";
import { AppError, isAppError } from "@/lib/runtime/errors";

export type EvalRunProgress = {
  id: string;
  status: EvalRunStatus;
  /** Trials stored so far (the harness writes each one as it finishes). */
  resultCount: number;
  passedCount: number;
  finishedAt: string | null;
};

export async function getEvalRunProgress(id: string, db: Db = getDb()): Promise<EvalRunProgress> {
  const run = await db.evalRun.findUnique({ where: { id }, select: { id: true, status: true, finishedAt: true } });
  if (!run)
    throw new AppError("NOT_FOUND", {
      message: `eval run ${id} not found`,
      userMessage: `There is no eval run "${id}".`,
    });
  const [resultCount, passedCount] = await Promise.all([
    db.evalResult.count({ where: { evalRunId: id } }),
    db.evalResult.count({ where: { evalRunId: id, passed: true } }),
  ]);
  return {
    id: run.id,
    status: run.status as EvalRunStatus,
    resultCount,
    passedCount,
    finishedAt: run.finishedAt?.toISOString() ?? null,
  };
}

/** For pages: a storage call's NOT_FOUND becomes null (the page renders notFound()); anything else throws. */
export async function orNull<T>(promise: Promise<T>): Promise<T | null> {
  try {
    return await promise;
  } catch (error) {
    if (isAppError(error, "NOT_FOUND")) return null;
    throw error;
  }
}

/** A dynamic route segment, decoded once; a malformed escape is kept as it is (it then matches nothing). */
export function decodeParam(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
