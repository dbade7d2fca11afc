"use client";
import { ConfirmDialog, type ConfirmDialogProps } from "@/components/ui/confirm-dialog";
import { diffArgs } from "@/lib/inbox/diff";
import type { DecidePacketInput } from "@/lib/runtime/decide-packet";
import { ArgsDiff } from "./args-diff";

type DecisionConfirmProps = Pick<ConfirmDialogProps, "isBusy" | "onConfirm" | "onCancel"> & {
  input: DecidePacketInput | null;
  impact: string;
  impactReason: string;
  proposedArgs: unknown;
};

/** The confirmation of a high-impact approval: what will happen, why it counts as high impact, and an edit's changes. */
export function DecisionConfirm({ input, impact, impactReason, proposedArgs, ...dialog }: DecisionConfirmProps) {
  const isEdit = input?.decision === "edit";
  return (
    <ConfirmDialog
      isOpen={input !== null}
      title={isEdit ? "Approve the edited action?" : "Approve this action?"}
      confirmLabel={isEdit ? "Confirm edit and approve" : "Confirm approval"}
      {...dialog}
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
