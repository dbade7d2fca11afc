"use client";
import { useState } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { cancelRunAction, resumeRunAction, retryRunAction, upgradeRunAction } from "@/lib/actions/runs";
import { TERMINAL_STATUSES } from "@/lib/runtime/types";
import { useRunLive } from "../live/run-live";
import { useRunSnapshot } from "../live/run-snapshot";
import { ForkForm } from "./fork-form";
import { useRunAction } from "./use-run-action";

type Pending = "cancel" | "retry" | null;

/**
 * What an operator can do to the run now. Rendered only for runs:operate; the actions check it again.
 * `upgradeTo`: the deployed version of the run's agent, when it is not the one the run started with.
 */
export function RunActions({ runId, upgradeTo }: { runId: string; upgradeTo?: string }) {
  const { head } = useRunLive();
  const { checkpoints } = useRunSnapshot();
  const { run, isPending, outcome } = useRunAction();
  const [confirming, setConfirming] = useState<Pending>(null);
  const [reason, setReason] = useState("");
  const canCancel = !TERMINAL_STATUSES.includes(head.status);
  const close = () => {
    setConfirming(null);
    setReason("");
  };

  function confirm() {
    if (confirming === "cancel") {
      run(
        () => cancelRunAction({ runId, reason }),
        () => ({ message: "The run is cancelled." }),
        close,
      );
    } else if (confirming === "retry") {
      run(
        () => retryRunAction({ runId, reason }),
        () => ({ message: "The run is queued again from its last checkpoint." }),
        close,
      );
    }
  }

  /** A run that needs attention goes on: on the deployed version of its agent when that is newer, else as it is. */
  function restart() {
    if (upgradeTo !== undefined) {
      run(
        () => upgradeRunAction({ runId }),
        () => ({ message: `The run is queued on version ${upgradeTo} of its agent.` }),
      );
    } else {
      run(
        () => resumeRunAction({ runId }),
        () => ({ message: "The run is queued and resumes from the decision." }),
      );
    }
  }

  return (
    <section aria-label="Run actions" className="space-y-2">
      <div className="flex flex-wrap items-end gap-2">
        {head.status === "NEEDS_ATTENTION" && (
          <Button variant="primary" isBusy={isPending} onClick={restart}>
            {upgradeTo === undefined ? "Resume run" : `Upgrade to version ${upgradeTo}`}
          </Button>
        )}
        {head.status === "FAILED" && (
          <Button variant="primary" isBusy={isPending} onClick={() => setConfirming("retry")}>
            Retry failed step
          </Button>
        )}
        {canCancel && (
          <Button variant="danger" isBusy={isPending} onClick={() => setConfirming("cancel")}>
            Cancel run
          </Button>
        )}
        <ForkForm runId={runId} checkpoints={checkpoints} run={run} isPending={isPending} />
      </div>
      {outcome && <Alert tone={outcome.tone}>{outcome.message}</Alert>}
      <ConfirmDialog
        isOpen={confirming !== null}
        title={confirming === "cancel" ? "Cancel this run?" : "Retry the failed step?"}
        confirmLabel={confirming === "cancel" ? "Cancel run" : "Retry"}
        confirmVariant={confirming === "cancel" ? "danger" : "primary"}
        isBusy={isPending}
        onConfirm={confirm}
        onCancel={close}
      >
        <p>
          {confirming === "cancel"
            ? "The run stops for good: a worker holding it is fenced out and nothing more is done. Effects already made stay made."
            : "The run is queued again from its last checkpoint; the agent decides the failed step afresh. Effects already made are not repeated."}
        </p>
        <label htmlFor="run-action-reason" className="mt-3 mb-1 block text-sm font-medium text-zinc-800">
          Reason (optional, kept in the trace)
        </label>
        <textarea
          id="run-action-reason"
          value={reason}
          onChange={(e) => setReason(e.target.value)}
          rows={2}
          maxLength={500}
          className="block w-full rounded border border-zinc-300 bg-white px-2.5 py-1.5 text-sm text-zinc-900 focus:outline-2 focus:outline-blue-600"
        />
      </ConfirmDialog>
    </section>
  );
}
