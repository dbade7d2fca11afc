"use client";
import { useQueryClient } from "@tanstack/react-query";
import { useTransition } from "react";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { TextareaField } from "@/components/ui/labelled-fields";
import { statusLabel } from "@/components/ui/status-badge";
import { decidePacketAction } from "@/lib/actions/packets";
import { describeDecisionError } from "@/lib/inbox/decision-errors";
import type { InboxItem } from "@/lib/inbox/queue";
import { queryKeys } from "@/lib/query-keys";
import { REASON } from "./decision-fields";
import { useRequiredText } from "./use-required-text";

export type QuickDecision = { item: InboxItem; decision: "approve" | "reject" | "redirect" };
export type QuickResult = { tone: "success" | "error"; message: string };

const COPY = {
  approve: { title: "Approve this action?", confirm: "Confirm approval" },
  reject: { title: "Reject this action?", confirm: "Reject" },
  redirect: { title: "Redirect the agent?", confirm: "Redirect" },
} as const;

/**
 * A decision made from the list by keyboard: approving a high-impact packet, rejecting (with a reason)
 * or redirecting (with an instruction) opens this dialog; a low-impact approval is sent at once (useQuickDecide).
 */
export function useQuickDecide(onDone: (result: QuickResult) => void) {
  const queryClient = useQueryClient();
  const [isPending, startTransition] = useTransition();
  function send(
    item: InboxItem,
    input:
      { decision: "approve" } | { decision: "reject"; reason: string } | { decision: "redirect"; instruction: string },
    after?: () => void,
  ) {
    startTransition(async () => {
      const result = await decidePacketAction({ packetId: item.id, ...input });
      void queryClient.invalidateQueries({ queryKey: queryKeys.packets.all });
      after?.();
      if (result.ok)
        onDone({
          tone: "success",
          message: `${item.tool} (${item.id}): ${statusLabel(result.data.status).toLowerCase()}.`,
        });
      else {
        const problem = describeDecisionError(result.code, result.message);
        onDone({ tone: "error", message: `${item.tool} (${item.id}): ${problem.title} ${result.message}` });
      }
    });
  }
  return { send, isPending };
}

type QuickDecideDialogProps = {
  pending: QuickDecision | null;
  isBusy: boolean;
  onCancel: () => void;
  onSend: (text: string) => void;
};

export function QuickDecideDialog({ pending, isBusy, onCancel, onSend }: QuickDecideDialogProps) {
  const text = useRequiredText();
  const decision = pending?.decision ?? "approve";
  return (
    <ConfirmDialog
      isOpen={pending !== null}
      title={COPY[decision].title}
      confirmLabel={COPY[decision].confirm}
      confirmVariant={decision === "reject" ? "danger" : "primary"}
      isBusy={isBusy}
      onCancel={() => {
        text.reset();
        onCancel();
      }}
      onConfirm={() => {
        const given = decision === "approve" ? "" : text.take(REASON[decision].empty);
        if (given === null) return;
        onSend(given);
        text.reset();
      }}
    >
      {pending && (
        <>
          <p className="font-medium text-zinc-900">{pending.item.impact}</p>
          <p className="mt-1 font-mono text-xs text-zinc-600">
            {pending.item.tool} · {pending.item.id}
          </p>
          {decision === "approve" ? (
            <p className="mt-1 text-xs text-zinc-600">High impact: confirm that exactly this action should run.</p>
          ) : (
            <TextareaField
              id="quick-decision-text"
              label={REASON[decision].label}
              className="mt-3"
              data-autofocus
              rows={3}
              {...text.controlProps}
            />
          )}
        </>
      )}
    </ConfirmDialog>
  );
}
