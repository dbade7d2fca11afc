"use client";
import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import { decidePacketAction } from "@/lib/actions/packets";
import type { DecidePacketInput } from "@/lib/runtime/decide-packet";
import { statusLabel } from "@/components/ui/status-badge";

export type DecisionOutcome =
  | { tone: "success"; message: string }
  | { tone: "error"; message: string; fieldErrors?: Record<string, string[]> };

const RACE_CODES = new Set(["PACKET_ALREADY_DECIDED", "CONFLICT"]);

/** Calls decidePacketAction and turns its result into one message; refreshes the page on success. */
export function useDecidePacket(packetId: string) {
  const router = useRouter();
  const [isPending, startTransition] = useTransition();
  const [outcome, setOutcome] = useState<DecisionOutcome | null>(null);

  function decide(input: DecidePacketInput) {
    startTransition(async () => {
      const result = await decidePacketAction({ packetId, ...input });
      if (result.ok) {
        setOutcome({ tone: "success", message: `Decision recorded. The packet is now ${statusLabel(result.data.status).toLowerCase()}.` });
        router.refresh();
      } else if (RACE_CODES.has(result.code)) {
        setOutcome({ tone: "error", message: `Someone else decided this packet first. ${result.message}` });
        router.refresh();
      } else {
        setOutcome({ tone: "error", message: result.message, fieldErrors: result.fieldErrors });
      }
    });
  }

  return { decide, isPending, outcome, setOutcome };
}
