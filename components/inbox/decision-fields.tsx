"use client";
import { useState, type FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { Field, Textarea, describedBy } from "@/components/ui/field";

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
    <form
      aria-label="Approve packet"
      className="space-y-3"
      onSubmit={(event) => {
        event.preventDefault();
        onSubmit();
      }}
    >
      <p className="text-sm text-zinc-600">
        Approve exactly the proposed action and arguments.
        {isHighImpact && " This is a high-impact action: you will be asked to confirm."}
      </p>
      <Button type="submit" variant="primary" isBusy={isBusy}>
        Approve
      </Button>
    </form>
  );
}

const REASON = {
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
  const [text, setText] = useState("");
  const [clientError, setClientError] = useState<string | null>(null);
  const error = clientError ?? errors?.join(" ") ?? null;
  const id = `decision-${copy.name}`;
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (text.trim() === "") return setClientError(copy.empty);
    setClientError(null);
    onSubmit(text.trim());
  }
  return (
    <form aria-label={`${copy.button} packet`} noValidate onSubmit={submit} className="space-y-3">
      <Field id={id} label={copy.label} error={error}>
        <Textarea
          id={id}
          name={copy.name}
          rows={3}
          required
          value={text}
          error={error}
          onChange={(e) => {
            setText(e.target.value);
            setClientError(null);
          }}
          {...describedBy(id, error)}
        />
      </Field>
      <Button type="submit" variant={kind === "reject" ? "danger" : "primary"} isBusy={isBusy}>
        {copy.button}
      </Button>
    </form>
  );
}
