"use client";
import { useEffect, useRef, useState } from "react";
import { Card } from "@/components/ui/card";
import { statusLabel } from "@/components/ui/status-badge";
import { PACKET_SHORTCUTS } from "@/lib/inbox/shortcuts";
import type { JsonSchema } from "@/lib/inbox/schema-form";
import type { DecidePacketInput } from "@/lib/runtime/decide-packet";
import type { DecisionKind, PacketStatus } from "@/lib/runtime/types";
import { DecisionConfirm } from "./decision-confirm";
import { ApproveForm, REASON, ReasonForm } from "./decision-fields";
import { DecisionOutcomeMessage } from "./decision-outcome";
import { EditForm } from "./edit-form";
import { CheckNow, HappenedForm, RetryForm, SkipForm } from "./in-doubt-fields";
import { ShortcutLegend } from "./shortcut-legend";
import { useDecidePacket } from "./use-decide-packet";
import { useShortcuts } from "./use-shortcuts";

const LABELS: Record<DecisionKind, string> = {
  approve: "Approve",
  edit: "Edit",
  reject: "Reject",
  redirect: "Redirect",
  happened: "It happened",
  retry: "It did not happen — run it again",
  skip: "It did not happen — skip it",
};

export type DecisionPanelProps = {
  packetId: string;
  status: PacketStatus;
  decidedBy: string | null;
  options: readonly DecisionKind[];
  /** The packet's tool, and whether its calls can be looked up by operation id ("Check now"). */
  tool: string;
  canLookUp: boolean;
  impact: string;
  proposedArgs: unknown;
  argsSchema: JsonSchema | null;
  isHighImpact: boolean;
  impactReason: string;
  approvers: string[];
  requiredApprovals: number;
  me: string;
  canDecide: boolean;
  /** Why this person may not decide this packet (its queue names other deciders…). */
  whyNotDecider?: string | null;
  /** Opened from the list with a decision chosen (e.g. `e` → edit). */
  initialDecision?: DecisionKind;
};

/** The decisions the packet offers, one form each; high-impact approvals ask for a confirmation. */
export function DecisionPanel(props: DecisionPanelProps) {
  const { packetId, status, options: offered, approvers, requiredApprovals, me, canDecide } = props;
  const { decide, isPending, outcome, setOutcome } = useDecidePacket(packetId);
  const hasApproved = approvers.includes(me);
  // Four eyes: an edit would replace what the first reviewer approved, so only approve/reject/redirect;
  // and whoever approved already cannot give the second approval.
  const options = offered.filter(
    (o) => !(requiredApprovals > 1 && o === "edit") && !(hasApproved && (o === "approve" || o === "edit")),
  );
  const firstOption = options[0] ?? "reject";
  const [picked, setChosen] = useState<DecisionKind>(
    props.initialDecision && options.includes(props.initialDecision) ? props.initialDecision : firstOption,
  );
  // What was picked may stop being an option (after this reviewer's four-eyes approval, approve is gone).
  const chosen = options.includes(picked) ? picked : firstOption;
  const [confirming, setConfirming] = useState<DecidePacketInput | null>(null);
  const [foundReceipt, setFoundReceipt] = useState<string | undefined>(undefined);
  const isInDoubt = offered.includes("happened");
  const formArea = useRef<HTMLDivElement>(null);
  const isOpen = status === "PENDING";

  function request(input: DecidePacketInput) {
    const isApproval = input.decision === "approve" || input.decision === "edit";
    if (isApproval && props.isHighImpact) setConfirming(input);
    else decide(input);
  }
  function choose(option: DecisionKind, focus = false) {
    if (!options.includes(option)) return;
    setChosen(option);
    setOutcome(null);
    if (focus)
      requestAnimationFrame(() =>
        formArea.current?.querySelector<HTMLElement>("input, select, textarea, button[type=submit]")?.focus(),
      );
  }
  const hasInitialDecision = props.initialDecision !== undefined;
  useEffect(() => {
    if (hasInitialDecision) formArea.current?.querySelector<HTMLElement>("input, select, textarea")?.focus();
  }, [hasInitialDecision]);
  const live = canDecide && isOpen && !isPending;
  useShortcuts(
    {
      a: options.includes("approve") ? () => request({ decision: "approve" }) : undefined,
      e: () => choose("edit", true),
      r: () => choose("reject", true),
      d: () => choose("redirect", true),
    },
    live,
  );

  if (!canDecide) {
    return (
      <Card title="Decision">
        <p className="text-sm text-zinc-600">
          {props.whyNotDecider ?? "Your role can read this packet but not decide it."}
        </p>
      </Card>
    );
  }
  const fieldErrors = outcome?.tone === "error" ? outcome.fieldErrors : undefined;
  const closedText = `This packet is ${statusLabel(status).toLowerCase()}${props.decidedBy ? ` (${props.decidedBy})` : ""}: there is nothing left to decide.`;
  return (
    <Card
      title="Decide"
      description={
        isOpen
          ? isInDoubt
            ? "Nobody knows whether this call happened. Check the system, then say what it shows."
            : "Choose what happens next."
          : closedText
      }
    >
      {isOpen && requiredApprovals > 1 && (
        <p className="mb-3 text-sm text-zinc-700">
          Needs {requiredApprovals} approvals from different reviewers;{" "}
          {approvers.length === 0 ? "none yet" : `approved so far by ${approvers.join(", ")}`}.
          {hasApproved && " You approved already: a different reviewer must give the next approval."}
        </p>
      )}
      {isOpen && (
        <>
          <div role="radiogroup" aria-label="Decision" className="mb-3 flex flex-wrap gap-1">
            {options.map((option) => (
              <button
                key={option}
                type="button"
                role="radio"
                aria-checked={chosen === option}
                onClick={() => choose(option)}
                className={`rounded border px-2.5 py-1 text-sm focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-blue-600 ${chosen === option ? "border-zinc-900 bg-zinc-900 text-white" : "border-zinc-300 bg-white text-zinc-800 hover:bg-zinc-50"}`}
              >
                {LABELS[option]}
              </button>
            ))}
          </div>
          {isInDoubt && props.canLookUp && (
            <CheckNow
              packetId={packetId}
              onFound={(receipt) => {
                setFoundReceipt(receipt);
                choose("happened");
              }}
            />
          )}
          <div ref={formArea} key={`${chosen}:${foundReceipt ?? ""}`}>
            {chosen === "approve" && (
              <ApproveForm
                isBusy={isPending}
                isHighImpact={props.isHighImpact}
                onSubmit={() => request({ decision: "approve" })}
              />
            )}
            {chosen === "edit" && (
              <EditForm
                proposedArgs={props.proposedArgs}
                argsSchema={props.argsSchema}
                serverErrors={fieldErrors}
                isBusy={isPending}
                onSubmit={(args) => request({ decision: "edit", args })}
              />
            )}
            {(chosen === "reject" || chosen === "redirect") && (
              <ReasonForm
                kind={chosen}
                isBusy={isPending}
                errors={fieldErrors?.[REASON[chosen].name]}
                onSubmit={(text) =>
                  decide(
                    chosen === "reject"
                      ? { decision: "reject", reason: text }
                      : { decision: "redirect", instruction: text },
                  )
                }
              />
            )}
            {chosen === "happened" && (
              <HappenedForm
                isBusy={isPending}
                receipt={foundReceipt}
                onSubmit={(answer) => decide({ decision: "happened", ...answer })}
              />
            )}
            {chosen === "retry" && (
              <RetryForm isBusy={isPending} tool={props.tool} onSubmit={() => decide({ decision: "retry" })} />
            )}
            {chosen === "skip" && (
              <SkipForm
                isBusy={isPending}
                onSubmit={(reason) => decide({ decision: "skip", ...(reason ? { reason } : {}) })}
              />
            )}
          </div>
          <ShortcutLegend
            shortcuts={PACKET_SHORTCUTS.filter(([, decision]) => options.includes(decision as DecisionKind))}
          />
        </>
      )}
      {outcome && <DecisionOutcomeMessage outcome={outcome} />}
      <DecisionConfirm
        input={confirming}
        impact={props.impact}
        impactReason={props.impactReason}
        proposedArgs={props.proposedArgs}
        isBusy={isPending}
        onCancel={() => setConfirming(null)}
        onConfirm={() => {
          if (confirming) decide(confirming);
          setConfirming(null);
        }}
      />
    </Card>
  );
}
