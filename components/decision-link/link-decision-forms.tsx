import { Button } from "@/components/ui/button";
import { Textarea } from "@/components/ui/field";
import type { DecisionKind } from "@/lib/runtime/types";

// One plain form per choice the link allows, each POSTing the token (no script needed, so it works in any
// mail client's browser). Reject and redirect take their reason or instruction here. The choice a mail's
// button named (?choice=approve) comes first.

const LABELS: Record<DecisionKind, string> = {
  approve: "Approve",
  edit: "Edit",
  reject: "Reject",
  redirect: "Redirect the agent",
  happened: "It happened",
  retry: "It did not happen: run it again",
  skip: "It did not happen: skip it",
};

const TEXT_FIELD: Partial<Record<DecisionKind, { name: string; label: string; required: boolean }>> = {
  reject: { name: "reason", label: "Reason (the agent receives it)", required: true },
  redirect: { name: "instruction", label: "Instruction for the agent", required: true },
  happened: { name: "receipt", label: "Receipt or reference (optional)", required: false },
  skip: { name: "reason", label: "Why skip it (optional)", required: false },
};

export function LinkDecisionForms({
  token,
  choices,
  preferred,
}: {
  token: string;
  choices: DecisionKind[];
  preferred?: string;
}) {
  const ordered = [...choices].sort((a, b) => Number(b === preferred) - Number(a === preferred));
  return (
    <div className="space-y-3">
      {ordered.map((choice) => {
        const field = TEXT_FIELD[choice];
        const id = `link-${choice}-${field?.name ?? "none"}`;
        return (
          <form
            key={choice}
            method="post"
            action="/api/decision-links"
            className="space-y-2 rounded-lg border border-zinc-200 bg-white px-4 py-3"
          >
            <input type="hidden" name="token" value={token} />
            <input type="hidden" name="decision" value={choice} />
            {field && (
              <div>
                <label htmlFor={id} className="block text-sm font-medium text-zinc-800">
                  {field.label}
                </label>
                <Textarea id={id} name={field.name} required={field.required} rows={2} className="mt-1 w-full" />
              </div>
            )}
            <Button
              type="submit"
              variant={
                choice === "approve" || choice === "retry" ? "primary" : choice === "reject" ? "danger" : "secondary"
              }
            >
              {LABELS[choice]}
            </Button>
          </form>
        );
      })}
    </div>
  );
}
