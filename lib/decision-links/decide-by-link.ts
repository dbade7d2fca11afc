import { z } from "zod";
import { decidePacketSchema, type DecidePacketOptions } from "@/lib/runtime/decide-packet";
import { AppError, fieldErrorsFromIssues } from "@/lib/runtime/errors";
import type { DecisionPacket } from "@/lib/runtime/types";
import { inWorkspace } from "@/lib/runtime/workspace";
import { openDecisionLink, type LinkDeps, type LinkState } from "./open-decision-link";

// Confirming a decision link (POST). The decision goes through runtime.decidePacket as the person the link
// was issued to, so their role, the queue's deciders, separation of duties and the digest all apply, and
// the decision and its audit row are written in decidePacket's own transaction.
//
// Why the link is consumed *before* the decision (compare-and-set on usedAt) and released if the decision
// is refused, rather than marked used after it: decidePacket runs its own transaction, so the two writes
// cannot share one. Consuming first means two concurrent POSTs of one link (two replicas, a double tap)
// can never both reach decidePacket — exactly one wins the CAS. A refused decision writes nothing in
// decidePacket, and the release (a CAS on the usedAt we set) puts the link back as it was, so a refusal
// writes nothing overall. The one loss is a process dying between the consume and the decision: the link
// is then spent without a decision — the person is told it was used and decides in the console. The
// other order could lose worse: a crash after the decision leaves the link reusable, and two racing POSTs
// would both decide (on a four-eyes packet, two approvals from one link).

export const decideByLinkSchema = z
  .object({ token: z.string({ error: "Which link?" }).trim().min(1, "Which link?").max(200) })
  .passthrough();

export type DecideByLinkDeps = LinkDeps & {
  decide: (opts: DecidePacketOptions) => Promise<DecisionPacket>;
};

export type LinkDecision = { packet: DecisionPacket; decidedAs: string };
type OpenLink = Extract<LinkState, { state: "open" }>;

function refusal(state: Exclude<LinkState, { state: "open" }>["state"], status?: string): AppError {
  switch (state) {
    case "invalid":
      return new AppError("NOT_FOUND", {
        message: "invalid decision link",
        userMessage: "This decision link is not valid.",
      });
    case "used":
      return new AppError("CONFLICT", {
        message: "decision link already used",
        userMessage: "This decision link was already used.",
      });
    case "expired":
      return new AppError("CONFLICT", {
        message: "decision link expired",
        userMessage: "This decision link has expired. Open the packet in the console.",
      });
    case "decided":
      return new AppError("PACKET_ALREADY_DECIDED", {
        message: `packet is ${status}`,
        userMessage: `This packet was already decided (${status?.toLowerCase() ?? "before"}).`,
      });
    case "changed":
      return new AppError("APPROVAL_MISMATCH", {
        message: "packet digest changed since the link was issued",
        userMessage: "The proposed action changed since this link was sent. Open the packet in the console.",
      });
  }
}

export async function decideByLink(deps: DecideByLinkDeps, body: unknown): Promise<LinkDecision> {
  const parsed = decideByLinkSchema.safeParse(body);
  if (!parsed.success) throw invalid(parsed.error.issues);
  const { token, ...rest } = parsed.data;
  const input = decidePacketSchema.safeParse(rest);
  if (!input.success) throw invalid(input.error.issues);
  const link = await openDecisionLink(deps, token);
  if (link.state !== "open") throw refusal(link.state, link.state === "decided" ? link.packet.status : undefined);
  if (!link.choices.includes(input.data.decision)) {
    throw new AppError("INVALID_INPUT", {
      message: `${input.data.decision} through a link`,
      userMessage: `Through this link you can ${link.choices.join(", ")}; edit the arguments in the console.`,
      fieldErrors: { decision: ["Not a choice of this link."] },
    });
  }

  // Everything after the link's lookup acts in its packet's workspace, whatever the request fell back to.
  return inWorkspace(link.packet.workspaceId, () => consumeAndDecide(deps, link, input.data));
}

/** Consumes the link (compare-and-set on usedAt), decides, and puts the link back if the decision is refused. */
async function consumeAndDecide(
  deps: DecideByLinkDeps,
  link: OpenLink,
  decision: z.infer<typeof decidePacketSchema>,
): Promise<LinkDecision> {
  const usedAt = deps.now();
  const { count } = await deps.db.decisionLink.updateMany({
    where: { id: link.linkId, usedAt: null },
    data: { usedAt, usedFor: decision.decision },
  });
  if (count === 0) throw refusal("used");
  try {
    const packet = await deps.decide({
      packetId: link.packet.id,
      reviewer: link.person.email,
      input: decision,
      via: `link:${link.linkId}`,
      workspaceId: link.packet.workspaceId,
    });
    return { packet, decidedAs: link.person.email };
  } catch (error) {
    // Refused (or failed) without a decision: the link is as it was, for this person to try again.
    await deps.db.decisionLink.updateMany({
      where: { id: link.linkId, usedAt },
      data: { usedAt: null, usedFor: null },
    });
    throw error;
  }
}

function invalid(issues: ReadonlyArray<{ path: PropertyKey[]; message: string }>): AppError {
  return new AppError("INVALID_INPUT", {
    message: "invalid link decision",
    userMessage: "The decision is incomplete.",
    fieldErrors: fieldErrorsFromIssues(issues),
  });
}
