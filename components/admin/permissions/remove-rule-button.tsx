"use client";
import { useState } from "react";
import { Button } from "@/components/ui/button";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { removePermissionAction } from "@/lib/actions/permissions";
import { describeRule } from "@/lib/runtime/permissions";
import type { PermissionRule } from "@/lib/runtime/types";
import { useAdminAction, type ActionOutcome } from "../use-admin-action";

export function RemoveRuleButton({
  rule,
  onOutcome,
}: {
  rule: PermissionRule;
  onOutcome: (outcome: ActionOutcome) => void;
}) {
  const [isOpen, setIsOpen] = useState(false);
  const name = describeRule(rule);
  const { run, isPending } = useAdminAction(removePermissionAction, {
    success: () => `Removed ${name}. What applies now is shown in the matrix.`,
    onOutcome: (outcome) => {
      setIsOpen(false);
      onOutcome(outcome);
    },
  });
  return (
    <>
      <Button variant="secondary" onClick={() => setIsOpen(true)}>
        Remove rule
      </Button>
      <ConfirmDialog
        isOpen={isOpen}
        title={`Remove the rule ${name}?`}
        confirmLabel="Remove rule"
        confirmVariant="danger"
        isBusy={isPending}
        onConfirm={() => run({ permissionId: rule.id })}
        onCancel={() => setIsOpen(false)}
      >
        From the next action of every run, a wildcard rule applies instead — or, without one, the tool is denied.
      </ConfirmDialog>
    </>
  );
}
