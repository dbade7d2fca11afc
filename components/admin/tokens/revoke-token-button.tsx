"use client";
import { useState } from "react";
import { Button } from "@/components/ui/button";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { revokeApiTokenAction } from "@/lib/actions/tokens";
import { ActionMessage } from "../action-message";
import { useAdminAction } from "../use-admin-action";

export function RevokeTokenButton({ tokenId, name }: { tokenId: string; name: string }) {
  const [isOpen, setIsOpen] = useState(false);
  const { run, isPending, outcome } = useAdminAction(revokeApiTokenAction, {
    success: () => `Token "${name}" revoked.`,
    onSuccess: () => setIsOpen(false),
  });
  return (
    <div className="flex flex-col items-end gap-1">
      <Button size="sm" variant="danger" onClick={() => setIsOpen(true)} aria-label={`Revoke token ${name}`}>
        Revoke
      </Button>
      <ConfirmDialog
        isOpen={isOpen}
        title={`Revoke the token “${name}”?`}
        confirmLabel="Revoke token"
        confirmVariant="danger"
        isBusy={isPending}
        onConfirm={() => run({ tokenId })}
        onCancel={() => setIsOpen(false)}
      >
        Every request made with it is refused from now on. This cannot be undone: create a new token if it is needed
        again.
        {outcome?.tone === "error" && (
          <div className="mt-3">
            <ActionMessage outcome={outcome} />
          </div>
        )}
      </ConfirmDialog>
      {outcome?.tone === "error" && !isOpen && <ActionMessage outcome={outcome} />}
    </div>
  );
}
