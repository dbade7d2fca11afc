import type { ReactNode } from "react";
import { Button } from "@/components/ui/button";

/** The Disable / Enable button of something an admin can switch off (an account, a tool), with its outcome below. */
export function EnableToggle({
  name,
  isDisabled,
  isBusy,
  onToggle,
  message,
}: {
  /** What is switched, as the button's accessible name says it: "Disable ada@example.com". */
  name: string;
  isDisabled: boolean;
  isBusy: boolean;
  onToggle: () => void;
  message: ReactNode;
}) {
  return (
    <div className="flex flex-col items-end gap-1">
      <Button
        size="sm"
        variant={isDisabled ? "secondary" : "danger"}
        isBusy={isBusy}
        onClick={onToggle}
        aria-label={`${isDisabled ? "Enable" : "Disable"} ${name}`}
      >
        {isDisabled ? "Enable" : "Disable"}
      </Button>
      {message}
    </div>
  );
}
