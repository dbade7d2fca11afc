import { auditNote } from "./store";
import type { EngineContext } from "./context";
import { AppError } from "./errors";
import { appendObservation, type Observation } from "./state";
import type { RunRecord } from "./types";

export type RetryOptions = { by: string; reason?: string; via?: string };

/**
 * Make a FAILED run runnable again from its last checkpoint (the state the failed step left):
 * the error streak is reset and a "retried" observation becomes the newest, so a policy that failed
 * on what it last observed (a provider down) decides the step afresh instead of failing again.
 * Intents already committed keep their keys, so nothing that happened is repeated. CAS on FAILED:
 * two operators retry once.
 */
export async function retryRun(ctx: EngineContext, run: RunRecord, opts: RetryOptions): Promise<RunRecord> {
  const { store } = ctx;
  if (run.status !== "FAILED") {
    throw new AppError("RUN_NOT_WAITING", {
      message: `run ${run.id} is ${run.status}, not FAILED`,
      userMessage: "Only a failed run can be retried.",
    });
  }
  // A retry resumes from the last checkpoint, which knows nothing of a call whose outcome is open:
  // retrying would act as if it never happened. A person settles it first (the recovery view lists it).
  const inDoubt = (await store.listIntents(run.id)).filter((i) => i.status === "PENDING" || i.status === "UNKNOWN");
  if (inDoubt.length > 0) {
    const calls = inDoubt.map((i) => `${i.tool} (operation ${i.id})`).join(", ");
    throw new AppError("CALLS_IN_DOUBT", {
      message: `run ${run.id} has calls in doubt: ${calls}`,
      userMessage: `The run cannot be retried: ${calls} may have happened. Check the system it acts on and settle what happened before anyone retries the run.`,
    });
  }
  const retried: Observation = {
    step: run.state.step,
    kind: "retried",
    message: `${opts.by} retried the run after it failed: ${run.error ?? "no error recorded"}${opts.reason ? ` (${opts.reason})` : ""}`,
  };
  const state = {
    ...run.state,
    pending: null,
    consecutiveErrors: 0,
    observations: appendObservation(run.state.observations, retried),
  };
  return store.transitionRun({
    runId: run.id,
    from: ["FAILED"],
    to: "QUEUED",
    state: { state, storedEntries: run.storedEntries },
    error: null,
    audit: auditNote("runs.retry", run.id, opts, { reason: opts.reason ?? null, previousError: run.error }),
    events: [
      {
        type: "run.retried",
        step: state.step,
        data: {
          by: opts.by,
          reason: opts.reason ?? null,
          previousError: run.error,
          fromCheckpointSeq: run.stateSeq,
        },
      },
    ],
  });
}
