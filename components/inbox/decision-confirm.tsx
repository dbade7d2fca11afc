"use client";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { diffArgs } from "@/lib/inbox/diff";
import type { DecidePacketInput } from "@/lib/runtime/decide-packet";
import { ArgsDiff } from "./args-diff";

type DecisionConfirmProps = {
  input: DecidePacketInput | null;
  impact: string;
  impactReason: string;
  proposedArgs: unknown;
  isBusy: boolean;
  onConfirm: () => void;
  onCancel: () => void;
};

/** The confirmation of a high-impact approval: what will happen, why it counts as high impact, and an edit's changes. */
export function DecisionConfirm({
  input,
  impact,
  impactReason,
  proposedArgs,
  isBusy,
  onConfirm,
  onCancel,
}: DecisionConfirmProps) {
  const isEdit = input?.decision === "edit";
  return (
    <ConfirmDialog
      isOpen={input !== null}
      title={isEdit ? "Approve the edited action?" : "Approve this action?"}
      confirmLabel={isEdit ? "Confirm edit and approve" : "Confirm approval"}
      isBusy={isBusy}
      onConfirm={onConfirm}
      onCancel={onCancel}
    >
      <p className="font-medium text-zinc-900">{impact}</p>
      <p className="mt-1 text-xs text-zinc-600">High impact: {impactReason}.</p>
      {isEdit && input?.decision === "edit" && (
        <div className="mt-3">
          <ArgsDiff entries={diffArgs(proposedArgs, input.args)} label="Your changes" />
          <p className="mt-1 text-xs text-zinc-600">
            The impact sentence above describes the proposal; your changes apply on top of it.
          </p>
        </div>
      )}
    </ConfirmDialog>
  );
}
