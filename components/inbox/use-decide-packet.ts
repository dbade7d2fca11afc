"use client";
import { useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import { statusLabel } from "@/components/ui/status-badge";
import { decidePacketAction } from "@/lib/actions/packets";
import { describeDecisionError, type DecisionProblem } from "@/lib/inbox/decision-errors";
import type { DecidePacketInput } from "@/lib/runtime/decide-packet";
import { queryKeys } from "@/lib/query-keys";

export type DecisionOutcome =
  | { tone: "success"; message: string }
  | { tone: "error"; kind: DecisionProblem["kind"]; message: string; fieldErrors?: Record<string, string[]> };

/** Calls decidePacketAction and turns its result into one message; refreshes the page and the inbox caches. */
export function useDecidePacket(packetId: string) {
  const router = useRouter();
  const queryClient = useQueryClient();
  const [isPending, startTransition] = useTransition();
  const [outcome, setOutcome] = useState<DecisionOutcome | null>(null);

  function decide(input: DecidePacketInput) {
    startTransition(async () => {
      const result = await decidePacketAction({ packetId, ...input });
      void queryClient.invalidateQueries({ queryKey: queryKeys.packets.all });
      if (result.ok) {
        const { status } = result.data;
        // Still pending after an approval: a four-eyes packet recorded this approval and waits for another reviewer.
        const message =
          status === "PENDING"
            ? "Your approval is recorded. A different reviewer must give the next one."
            : `Decision recorded. The packet is now ${statusLabel(status).toLowerCase()}.`;
        setOutcome({ tone: "success", message });
        router.refresh();
        return;
      }
      const problem = describeDecisionError(result.code, result.message);
      setOutcome({
        tone: "error",
        kind: problem.kind,
        message:
          problem.kind === "invalid" && !result.fieldErrors ? result.message : `${problem.title} ${result.message}`,
        fieldErrors: result.fieldErrors,
      });
      if (problem.kind === "race" || problem.kind === "expired" || problem.kind === "stale") router.refresh();
    });
  }

  return { decide, isPending, outcome, setOutcome };
}
