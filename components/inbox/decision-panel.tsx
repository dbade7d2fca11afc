"use client";
import { useState, type FormEvent } from "react";
import { Card } from "@/components/ui/card";
import { statusLabel } from "@/components/ui/status-badge";
import type { DecisionKind, PacketStatus } from "@/lib/runtime/types";
import { DecisionFields, FieldErrorList } from "./decision-fields";
import { useDecidePacket } from "./use-decide-packet";

const LABELS: Record<DecisionKind, string> = { approve: "Approve", edit: "Edit", reject: "Reject", redirect: "Redirect" };

type DecisionPanelProps = { packetId: string; status: PacketStatus; options: DecisionKind[]; proposedArgs: string; canDecide: boolean };

/** The four decisions (only those the packet offers): one form each, one message for the outcome. */
export function DecisionPanel({ packetId, status, options, proposedArgs, canDecide }: DecisionPanelProps) {
  const { decide, isPending, outcome, setOutcome } = useDecidePacket(packetId);
  const [chosen, setChosen] = useState<DecisionKind>(options[0] ?? "approve");

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const text = (name: string) => String(form.get(name) ?? "");
    if (chosen === "edit") {
      let args: unknown;
      try {
        args = JSON.parse(text("args"));
      } catch {
        setOutcome({ tone: "error", message: "Check the highlighted fields.", fieldErrors: { args: ["The arguments are not valid JSON."] } });
        return;
      }
      decide({ decision: "edit", args });
    } else if (chosen === "reject") decide({ decision: "reject", reason: text("reason") });
    else if (chosen === "redirect") decide({ decision: "redirect", instruction: text("instruction") });
    else decide({ decision: "approve" });
  }

  if (!canDecide) {
    return (
      <Card title="Decision">
        <p className="text-sm text-zinc-500">Your role can read this packet but not decide it.</p>
      </Card>
    );
  }
  const fieldErrors = outcome?.tone === "error" ? outcome.fieldErrors : undefined;
  const isOpen = status === "PENDING";
  return (
    <Card title="Decide" description={isOpen ? "Choose what happens next." : `This packet is ${statusLabel(status).toLowerCase()}: there is nothing left to decide.`}>
      {isOpen && (
        <>
          <div role="radiogroup" aria-label="Decision" className="mb-3 flex flex-wrap gap-1">
            {options.map((option) => (
              <button
                key={option}
                type="button"
                role="radio"
                aria-checked={chosen === option}
                onClick={() => {
                  setChosen(option);
                  setOutcome(null);
                }}
                className={`rounded border px-2.5 py-1 text-sm ${chosen === option ? "border-zinc-900 bg-zinc-900 text-white" : "border-zinc-300 bg-white text-zinc-800 hover:bg-zinc-50"}`}
              >
                {LABELS[option]}
              </button>
            ))}
          </div>
          <form key={chosen} onSubmit={submit} aria-label={`${LABELS[chosen]} packet`} className="space-y-3">
            <DecisionFields decision={chosen} proposedArgs={proposedArgs} fieldErrors={fieldErrors} />
            <button
              type="submit"
              disabled={isPending}
              className="rounded bg-blue-700 px-3 py-1.5 text-sm font-medium text-white hover:bg-blue-800 disabled:opacity-60"
            >
              {isPending ? "Sending…" : `${LABELS[chosen]}${chosen === "edit" ? " and approve" : ""}`}
            </button>
          </form>
        </>
      )}
      {outcome && (
        <div role={outcome.tone === "error" ? "alert" : "status"} className={`mt-3 rounded border px-3 py-2 text-sm ${outcome.tone === "success" ? "border-emerald-300 bg-emerald-50 text-emerald-900" : "border-red-300 bg-red-50 text-red-900"}`}>
          {outcome.message}
          {fieldErrors?._ && <FieldErrorList id="decision-errors" messages={fieldErrors._} />}
        </div>
      )}
    </Card>
  );
}
