import type { ReactNode } from "react";
import { Alert } from "@/components/ui/alert";
import { formatUtc } from "@/components/ui/timestamp";
import type { LinkState } from "@/lib/decision-links/open-decision-link";

// What a link that can no longer decide says, and how a confirmation went (from a code only: nothing of
// the request is echoed back into the page).

const REFUSALS: Record<string, string> = {
  FORBIDDEN:
    "Tether refused this decision: your role, the queue's deciders or separation of duties (whoever asked for an action may not approve it) do not allow it.",
  INVALID_INPUT: "The decision is incomplete: a rejection needs a reason, a redirect an instruction.",
  PACKET_EXPIRED: "This packet expired before it was decided.",
  PACKET_STALE: "The evidence changed; the agent will ask again with fresh data.",
  PACKET_ALREADY_DECIDED: "This packet was already decided.",
  CONFLICT: "Someone decided this packet at the same moment. Nothing was changed by you.",
};

export function outcomeNotice(outcome: string): ReactNode {
  if (outcome === "done") return null; // the used link's status says what happened
  return (
    <Alert tone="error" title="Not decided">
      {REFUSALS[outcome] ?? "The decision could not be made. Nothing was changed."}
    </Alert>
  );
}

export function LinkStatus({ link, notice }: { link: Exclude<LinkState, { state: "open" }>; notice: ReactNode }) {
  return (
    <>
      <h1 className="text-lg font-semibold text-zinc-900">Decision link</h1>
      {notice}
      <StatusMessage link={link} />
    </>
  );
}

function StatusMessage({ link }: { link: Exclude<LinkState, { state: "open" }> }) {
  switch (link.state) {
    case "invalid":
      return (
        <Alert tone="error" title="This link is not valid">
          Check that you copied the whole link, or open the packet in the console.
        </Alert>
      );
    case "expired":
      return (
        <Alert tone="warning" title="This link has expired">
          It expired at {formatUtc(link.expiresAt)}. Open the packet in the console to decide it.
        </Alert>
      );
    case "changed":
      return (
        <Alert tone="warning" title="The proposed action changed">
          The action changed after this link was sent, so the link no longer decides it. Open the packet in the console.
        </Alert>
      );
    case "decided":
      return (
        <Alert tone="info" title="Already decided">
          This packet is {link.packet.status.toLowerCase()}
          {link.packet.decidedBy ? ` (decided by ${link.packet.decidedBy})` : ""}. Nothing more to do.
        </Alert>
      );
    case "used": {
      const decided = link.packet.status !== "PENDING";
      return (
        <Alert
          tone="success"
          title={decided ? `Decided: ${link.packet.status.toLowerCase()}` : "Your approval is recorded"}
        >
          {decided
            ? `Decided by ${link.packet.decidedBy ?? link.person.email}${link.packet.decidedAt ? ` at ${formatUtc(link.packet.decidedAt)}` : ""}. This link has been used.`
            : "Another approver must still decide. This link has been used."}
        </Alert>
      );
    }
  }
}
