"use client";
import { Button } from "@/components/ui/button";
import { disableToolAction, enableToolAction } from "@/lib/actions/tools";
import { ActionMessage } from "../action-message";
import { useAdminAction } from "../use-admin-action";

/** Disable (the engine stops finding it at its next use) or enable a registered tool. */
export function ToggleToolButton({ toolId, name, isDisabled }: { toolId: string; name: string; isDisabled: boolean }) {
  const action = isDisabled ? enableToolAction : disableToolAction;
  const { run, isPending, outcome } = useAdminAction(action, {
    success: (t) => `${t.name} ${isDisabled ? "enabled" : "disabled"}.`,
  });
  return (
    <div className="flex flex-col items-end gap-1">
      <Button
        size="sm"
        variant={isDisabled ? "secondary" : "danger"}
        isBusy={isPending}
        onClick={() => run({ toolId })}
        aria-label={`${isDisabled ? "Enable" : "Disable"} ${name}`}
      >
        {isDisabled ? "Enable" : "Disable"}
      </Button>
      {outcome?.tone === "error" && <ActionMessage outcome={outcome} />}
    </div>
  );
}
