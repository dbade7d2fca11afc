"use client";
import { useState, useTransition } from "react";
import { Button } from "@/components/ui/button";
import { JsonView } from "@/components/ui/json-view";
import { InputField, TextareaField } from "@/components/ui/labelled-fields";
import { checkUnknownOutcomeAction } from "@/lib/actions/packets";
import { DecisionForm } from "./decision-form";

// The forms of an unknown-outcome packet. Each says what the person found and what the run does next,
// so that nobody answers "yes, it happened" with a button that runs the call again.

/** A short free-text answer the person may leave empty (a note, a reason), held in the form's state. */
function OptionalText({
  onChange,
  ...field
}: {
  id: string;
  name: string;
  label: string;
  value: string;
  onChange: (value: string) => void;
}) {
  return <TextareaField {...field} rows={2} onChange={(e) => onChange(e.target.value)} />;
}

/** "It happened": optionally with the system's receipt (e.g. the deploy id) and a note. */
export function HappenedForm({
  isBusy,
  receipt: knownReceipt,
  onSubmit,
}: {
  isBusy: boolean;
  receipt?: string;
  onSubmit: (input: { receipt?: string; note?: string }) => void;
}) {
  const [receipt, setReceipt] = useState(knownReceipt ?? "");
  const [note, setNote] = useState("");
  function submit() {
    onSubmit({ ...(receipt.trim() ? { receipt: receipt.trim() } : {}), ...(note.trim() ? { note: note.trim() } : {}) });
  }
  return (
    <DecisionForm label="It happened" onSubmit={submit}>
      <p className="text-sm text-zinc-600">
        The outside system shows the call went through. It is not run again; the run continues with your word as its
        result.
      </p>
      <InputField
        id="decision-receipt"
        name="receipt"
        label="Receipt (optional): the system's id for it"
        value={receipt}
        onChange={(e) => setReceipt(e.target.value)}
      />
      <OptionalText id="decision-note" name="note" label="Note (optional)" value={note} onChange={setNote} />
      <Button type="submit" variant="primary" isBusy={isBusy}>
        Record that it happened
      </Button>
    </DecisionForm>
  );
}

/** "It did not happen — run it again": the same call, under the same operation id, once the person has checked. */
export function RetryForm({ isBusy, tool, onSubmit }: { isBusy: boolean; tool: string; onSubmit: () => void }) {
  const [checked, setChecked] = useState(false);
  return (
    <DecisionForm
      label="Run it again"
      onSubmit={() => {
        if (checked) onSubmit();
      }}
    >
      <p className="text-sm text-zinc-600">
        <span className="font-mono">{tool}</span> runs again. If it did happen after all, it happens twice.
      </p>
      <label className="flex items-start gap-2 text-sm text-zinc-800">
        <input type="checkbox" className="mt-1" checked={checked} onChange={(e) => setChecked(e.target.checked)} />I
        checked the system: it did not happen.
      </label>
      <Button type="submit" variant="danger" isBusy={isBusy} disabled={!checked}>
        Run it again
      </Button>
    </DecisionForm>
  );
}

/** "It did not happen — skip it": the call is recorded as not done and the run goes on without it. */
export function SkipForm({ isBusy, onSubmit }: { isBusy: boolean; onSubmit: (reason?: string) => void }) {
  const [reason, setReason] = useState("");
  return (
    <DecisionForm label="Skip it" onSubmit={() => onSubmit(reason.trim() || undefined)}>
      <p className="text-sm text-zinc-600">
        The call is recorded as not done and is not run again; the agent goes on without it.
      </p>
      <OptionalText
        id="decision-skip-reason"
        name="reason"
        label="Reason (optional, the agent receives it)"
        value={reason}
        onChange={setReason}
      />
      <Button type="submit" variant="secondary" isBusy={isBusy}>
        Skip it
      </Button>
    </DecisionForm>
  );
}

type CheckResult = { found: boolean; receipt: string | null; result: unknown; checkedAt: string };

/** "Check now": the tool's own lookup by operation id; the answer prefills "It happened" when it was found. */
export function CheckNow({ packetId, onFound }: { packetId: string; onFound: (receipt: string | undefined) => void }) {
  const [isPending, startTransition] = useTransition();
  const [check, setCheck] = useState<CheckResult | null>(null);
  const [error, setError] = useState<string | null>(null);
  function run() {
    startTransition(async () => {
      const answer = await checkUnknownOutcomeAction({ packetId });
      if (!answer.ok) {
        setError(answer.message);
        setCheck(null);
        return;
      }
      setError(null);
      setCheck(answer.data);
      if (answer.data.found) onFound(answer.data.receipt ?? undefined);
    });
  }
  return (
    <div className="mb-3 rounded border border-zinc-200 bg-zinc-50 p-3 text-sm">
      <div className="flex items-center justify-between gap-2">
        <span className="text-zinc-700">Ask the system whether this call went through.</span>
        <Button size="sm" variant="secondary" isBusy={isPending} onClick={run}>
          Check now
        </Button>
      </div>
      {error && (
        <p role="alert" className="mt-2 text-red-800">
          {error}
        </p>
      )}
      {check && (
        <div role="status" className="mt-2 space-y-2">
          <p className={check.found ? "text-emerald-800" : "text-zinc-800"}>
            {check.found
              ? `It happened${check.receipt ? ` (receipt ${check.receipt})` : ""}: "It happened" is filled in.`
              : "The system has no record of it: it did not happen."}
          </p>
          {check.found && <JsonView value={check.result} label="What the system reports" />}
        </div>
      )}
    </div>
  );
}
