"use client";
import { disableToolAction, enableToolAction } from "@/lib/actions/tools";
import { ActionMessage } from "../action-message";
import { EnableToggle } from "../enable-toggle";
import { useAdminAction } from "../use-admin-action";

/** Disable (the engine stops finding it at its next use) or enable a registered tool. */
export function ToggleToolButton({ toolId, name, isDisabled }: { toolId: string; name: string; isDisabled: boolean }) {
  const action = isDisabled ? enableToolAction : disableToolAction;
  const { run, isPending, outcome } = useAdminAction(action, {
    success: (t) => `${t.name} ${isDisabled ? "enabled" : "disabled"}.`,
  });
  return (
    <EnableToggle
      name={name}
      isDisabled={isDisabled}
      isBusy={isPending}
      onToggle={() => run({ toolId })}
      message={outcome?.tone === "error" && <ActionMessage outcome={outcome} />}
    />
  );
}
