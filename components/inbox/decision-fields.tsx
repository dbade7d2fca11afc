"use client";
import { Button } from "@/components/ui/button";
import { TextareaField } from "@/components/ui/labelled-fields";
import { DecisionForm } from "./decision-form";
import { useRequiredText } from "./use-required-text";

export function ApproveForm({
  isBusy,
  isHighImpact,
  onSubmit,
}: {
  isBusy: boolean;
  isHighImpact: boolean;
  onSubmit: () => void;
}) {
  return (
    <DecisionForm label="Approve packet" onSubmit={onSubmit}>
      <p className="text-sm text-zinc-600">
        Approve exactly the proposed action and arguments.
        {isHighImpact && " This is a high-impact action: you will be asked to confirm."}
      </p>
      <Button type="submit" variant="primary" isBusy={isBusy}>
        Approve
      </Button>
    </DecisionForm>
  );
}

/** The text the agent receives with a rejection (a reason) or a redirect (an instruction). */
export const REASON = {
  reject: {
    name: "reason",
    label: "Reason (the agent receives it)",
    button: "Reject",
    empty: "Say why you reject it: the agent receives the reason.",
  },
  redirect: {
    name: "instruction",
    label: "Instruction for the agent",
    button: "Redirect",
    empty: "Give the agent an instruction.",
  },
} as const;

/** Reject (with a reason) or redirect (with an instruction): one text the agent receives. */
export function ReasonForm({
  kind,
  isBusy,
  errors,
  onSubmit,
}: {
  kind: "reject" | "redirect";
  isBusy: boolean;
  errors?: string[];
  onSubmit: (text: string) => void;
}) {
  const copy = REASON[kind];
  const text = useRequiredText();
  const id = `decision-${copy.name}`;
  function submit() {
    const given = text.take(copy.empty);
    if (given !== null) onSubmit(given);
  }
  return (
    <DecisionForm label={`${copy.button} packet`} onSubmit={submit}>
      <TextareaField
        id={id}
        name={copy.name}
        label={copy.label}
        rows={3}
        required
        {...text.controlProps}
        error={text.error ?? errors?.join(" ") ?? null}
      />
      <Button type="submit" variant={kind === "reject" ? "danger" : "primary"} isBusy={isBusy}>
        {copy.button}
      </Button>
    </DecisionForm>
  );
}
