"use client";
import { useState } from "react";
import { Button } from "@/components/ui/button";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { forkRunAction } from "@/lib/actions/runs";
import type { useRunAction } from "./use-run-action";

type ForkFormProps = {
  runId: string;
  checkpoints: Array<{ seq: number; step: number }>;
  run: ReturnType<typeof useRunAction>["run"];
  isPending: boolean;
};

/** Fork a new run from a chosen checkpoint: same state, nothing pending, its own trace. */
export function ForkForm({ runId, checkpoints, run, isPending }: ForkFormProps) {
  const [seq, setSeq] = useState(checkpoints.at(-1)?.seq ?? 0);
  const [isConfirming, setIsConfirming] = useState(false);
  if (checkpoints.length === 0) return null;
  return (
    <div className="flex items-end gap-2">
      <div>
        <label htmlFor="fork-checkpoint" className="mb-1 block text-xs font-medium text-zinc-700">
          Fork from checkpoint
        </label>
        <select
          id="fork-checkpoint"
          value={seq}
          onChange={(e) => setSeq(Number(e.target.value))}
          className="rounded border border-zinc-300 bg-white px-2 py-1.5 text-sm text-zinc-900 focus:outline-2 focus:outline-blue-600"
        >
          {checkpoints.toReversed().map((c) => (
            <option key={c.seq} value={c.seq}>
              #{c.seq} · step {c.step}
            </option>
          ))}
        </select>
      </div>
      <Button isBusy={isPending} onClick={() => setIsConfirming(true)}>
        Fork run
      </Button>
      <ConfirmDialog
        isOpen={isConfirming}
        title={`Fork a new run from checkpoint #${seq}?`}
        confirmLabel="Fork"
        isBusy={isPending}
        onConfirm={() =>
          run(
            () => forkRunAction({ runId, checkpointSeq: seq }),
            (fork) => ({ message: `Forked as ${fork.runId}.`, goTo: `/runs/${encodeURIComponent(fork.runId)}` }),
            () => setIsConfirming(false),
          )
        }
        onCancel={() => setIsConfirming(false)}
      >
        <p>
          The new run starts from the state at that checkpoint, with nothing pending, and is queued for a worker. This
          run is left as it is.
        </p>
      </ConfirmDialog>
    </div>
  );
}
