"use client";
import { useState } from "react";
import { Button } from "@/components/ui/button";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { removeMemberAction } from "@/lib/actions/workspaces";
import { ActionMessage } from "../action-message";
import { useAdminAction } from "../use-admin-action";

/** Takes a person out of this workspace, after a confirmation; the server says why when it cannot (last admin, …). */
export function RemoveMemberButton({ email, workspaceName }: { email: string; workspaceName: string }) {
  const [isOpen, setIsOpen] = useState(false);
  const { run, isPending, outcome } = useAdminAction(removeMemberAction, {
    success: (m) => `${m.email} is no longer in ${workspaceName}.`,
    onSuccess: () => setIsOpen(false),
  });
  return (
    <div className="flex flex-col items-end gap-1">
      <Button
        size="sm"
        variant="danger"
        onClick={() => setIsOpen(true)}
        aria-label={`Remove ${email} from ${workspaceName}`}
      >
        Remove
      </Button>
      <ConfirmDialog
        isOpen={isOpen}
        title={`Remove ${email} from ${workspaceName}?`}
        confirmLabel="Remove from workspace"
        confirmVariant="danger"
        isBusy={isPending}
        onConfirm={() => run({ email })}
        onCancel={() => setIsOpen(false)}
      >
        From their next request on they cannot open this workspace. Their account, their other workspaces and what they
        did here (the audit log keeps it) stay.
        {outcome?.tone === "error" && (
          <div className="mt-3">
            <ActionMessage outcome={outcome} />
          </div>
        )}
      </ConfirmDialog>
      {outcome && !isOpen && <ActionMessage outcome={outcome} />}
    </div>
  );
}
