import type { DecisionPacket, EffectIntent, RunRecord } from "./types";
import { TERMINAL_STATUSES } from "./types";

// The recovery view (docs/design.md): for any run, after any restart, what definitely happened,
// what may have happened, and what is safe to do next. Pure: derived from the run, its intents and
// its packets, so the console, the API and tests all read the same answer.

export type RecoveryItem = {
  operationId: string;
  step: number;
  tool: string;
  semantics: EffectIntent["semantics"];
  attempt: number;
  args: unknown;
  result?: unknown;
  at: string;
  why: string;
};

export type SafeNextAction = {
  action:
    "wait" | "resume" | "retry_with_same_key" | "reconcile" | "ask_human" | "decide_packet" | "retry_run" | "none";
  description: string;
};

export type RecoveryView = {
  runId: string;
  status: RunRecord["status"];
  definitelyHappened: RecoveryItem[];
  mayHaveHappened: RecoveryItem[];
  definitelyNotHappened: RecoveryItem[];
  safeNext: SafeNextAction[];
};

const LEASE_GRACE_MS = 0;

/** `loadedAgentVersion`: the version of the run's agent this deployment runs (a run never switches to it on its own). */
export function buildRecoveryView(
  run: RunRecord,
  intents: EffectIntent[],
  packets: DecisionPacket[],
  now: Date,
  loadedAgentVersion?: string,
): RecoveryView {
  const item = (i: EffectIntent, why: string): RecoveryItem => ({
    operationId: i.id,
    step: i.step,
    tool: i.tool,
    semantics: i.semantics,
    attempt: i.attempt,
    args: i.args,
    result: i.result ?? undefined,
    at: (i.completedAt ?? i.createdAt).toISOString(),
    why,
  });

  const definitelyHappened: RecoveryItem[] = [];
  const mayHaveHappened: RecoveryItem[] = [];
  const definitelyNotHappened: RecoveryItem[] = [];
  for (const intent of intents) {
    if (intent.status === "SUCCEEDED")
      definitelyHappened.push(item(intent, "the tool returned a result that was committed with the run's state"));
    else if (intent.status === "RESOLVED")
      definitelyHappened.push(item(intent, "a person resolved the unknown outcome"));
    else if (intent.status === "FAILED")
      definitelyNotHappened.push(item(intent, "the tool refused the call; the world did not change"));
    else if (intent.status === "UNKNOWN")
      mayHaveHappened.push(
        item(intent, "the call was made but its outcome is unknown and the tool cannot be safely repeated"),
      );
    else
      mayHaveHappened.push(
        item(
          intent,
          "the intent was committed but no result was recorded: the call may or may not have reached the system",
        ),
      );
  }

  const safeNext: SafeNextAction[] = [];
  const pendingPackets = packets.filter((p) => p.status === "PENDING");
  const leaseLive =
    run.leaseOwner !== null &&
    run.leaseExpiresAt !== null &&
    run.leaseExpiresAt.getTime() + LEASE_GRACE_MS > now.getTime();

  if (run.status === "FAILED") {
    // An operator can retry a failed run (engine retryRun); that is safe only when nothing is in doubt.
    safeNext.push(
      mayHaveHappened.length === 0
        ? {
            action: "retry_run",
            description:
              "The run failed; an operator may retry the failed step from its last checkpoint. Nothing is in doubt, and what happened is not repeated.",
          }
        : {
            action: "none",
            description:
              "The run failed with calls in doubt: a person must settle what may have happened before anyone retries it.",
          },
    );
  } else if (TERMINAL_STATUSES.includes(run.status)) {
    safeNext.push({ action: "none", description: `The run is ${run.status.toLowerCase()}; nothing will run again.` });
  } else {
    for (const intent of intents.filter((i) => i.status === "PENDING")) {
      if (leaseLive) continue; // a live worker is in the middle of it
      if (intent.semantics === "idempotent")
        safeNext.push({
          action: "retry_with_same_key",
          description: `Retry ${intent.tool} with idempotency key ${intent.id}: the system applies it at most once.`,
        });
      else if (intent.semantics === "reconcilable")
        safeNext.push({
          action: "reconcile",
          description: `Look ${intent.tool} up by operation ${intent.id} first; repeat it only if it is not found.`,
        });
      else
        safeNext.push({
          action: "ask_human",
          description: `${intent.tool} cannot be repeated safely: a person must say whether it happened.`,
        });
    }
    for (const packet of pendingPackets) {
      safeNext.push({
        action: "decide_packet",
        description: `Decide packet ${packet.id} (${packet.tool}): ${packet.content.impact}`,
      });
    }
    if (safeNext.length === 0) {
      if (leaseLive)
        safeNext.push({
          action: "wait",
          description: `Worker ${run.leaseOwner} holds the run until ${run.leaseExpiresAt!.toISOString()}.`,
        });
      else if (run.status === "WAITING_EVENT")
        safeNext.push({ action: "wait", description: `Waiting for a "${run.waitingFor}" event.` });
      else if (run.status === "SLEEPING")
        safeNext.push({ action: "wait", description: `Sleeping until ${run.wakeAt?.toISOString()}.` });
      else if ((run.status === "NEEDS_ATTENTION" || run.status === "WAITING_APPROVAL") && run.wakeAt)
        safeNext.push({ action: "resume", description: "A person decided; the next worker acts on the decision." });
      else if (
        run.status === "NEEDS_ATTENTION" &&
        loadedAgentVersion !== undefined &&
        loadedAgentVersion !== run.agentVersion
      ) {
        safeNext.push({
          action: "ask_human",
          description: `The run started on version ${run.agentVersion} of ${run.agentSlug}, and this deployment runs version ${loadedAgentVersion}: an operator upgrades the run to it (POST /api/runs/:id/upgrade), or deploys version ${run.agentVersion} again.`,
        });
      } else if (run.status === "NEEDS_ATTENTION" && run.state.observations.at(-1)?.kind === "policy_error") {
        safeNext.push({
          action: "resume",
          description: `Its policy kept failing (${run.state.observations.at(-1)!.message}). Nothing is in doubt: an operator resumes it once the policy can decide again.`,
        });
      } else if (run.status === "NEEDS_ATTENTION")
        safeNext.push({ action: "ask_human", description: "A person must resolve the run before it can continue." });
      else
        safeNext.push({
          action: "resume",
          description: "Nothing is in doubt: the next worker continues from the last checkpoint.",
        });
    }
  }
  return { runId: run.id, status: run.status, definitelyHappened, mayHaveHappened, definitelyNotHappened, safeNext };
}
