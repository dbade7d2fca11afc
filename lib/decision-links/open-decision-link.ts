import type { Db } from "@/lib/db";
import { decisionOptions, type DecisionKind, type DecisionPacket, type PacketStatus } from "@/lib/runtime/types";
import { asSystem, inWorkspace } from "@/lib/runtime/workspace";
import { isSignedFor, parseLinkToken } from "./token";

// What a decision link shows (GET /d/<token>; never a write): the packet and the choices it allows while
// the link is good, or why it is not. A token that is malformed, unsigned, for an unknown link, person
// or packet is just "invalid": the answer tells a guesser nothing about what exists.

export type LinkDeps = {
  db: Pick<Db, "decisionLink" | "user">;
  getPacket: (id: string, workspaceId: string | null) => Promise<DecisionPacket | null>;
  key: Buffer;
  now: () => Date;
};

export type LinkPerson = { id: string; email: string; name: string | null };
type Outcome = { status: PacketStatus; decidedBy: string | null; decidedAt: Date | null };

export type LinkState =
  | { state: "invalid" }
  | { state: "used"; usedAt: Date; usedFor: string | null; person: LinkPerson; packet: Outcome }
  | { state: "expired"; expiresAt: Date }
  | { state: "decided"; packet: Outcome }
  | { state: "changed" }
  | {
      state: "open";
      linkId: string;
      expiresAt: Date;
      person: LinkPerson;
      packet: DecisionPacket;
      choices: DecisionKind[];
    };

const outcome = (p: DecisionPacket): Outcome => ({ status: p.status, decidedBy: p.decidedBy, decidedAt: p.decidedAt });

/** Editing arguments needs the tool's form: that stays in the console. Every other option of the packet is offered. */
export const linkChoices = (packet: DecisionPacket): DecisionKind[] =>
  decisionOptions(packet).filter((choice) => choice !== "edit");

/**
 * The link's row, found across workspaces: the signed token names the workspace, as an API token does, not the
 * request (a public route's request names none, and the console would fall back to the default one).
 */
async function findSignedLink(deps: Pick<LinkDeps, "db" | "key">, token: string) {
  const parsed = parseLinkToken(token);
  if (!parsed) return null;
  const link = await asSystem(() => deps.db.decisionLink.findUnique({ where: { id: parsed.id } }));
  return link && isSignedFor(deps.key, link, parsed.signature) ? link : null;
}

export async function openDecisionLink(deps: LinkDeps, token: string): Promise<LinkState> {
  const link = await findSignedLink(deps, token);
  if (!link) return { state: "invalid" };
  return inWorkspace(link.workspaceId, () => linkState(deps, link));
}

type LinkRow = NonNullable<Awaited<ReturnType<typeof findSignedLink>>>;

async function linkState(deps: LinkDeps, link: LinkRow): Promise<LinkState> {
  const [user, packet] = await Promise.all([
    deps.db.user.findUnique({ where: { id: link.userId }, select: { id: true, email: true, name: true } }),
    deps.getPacket(link.packetId, link.workspaceId),
  ]);
  if (!user || !packet) return { state: "invalid" };
  if (link.usedAt)
    return { state: "used", usedAt: link.usedAt, usedFor: link.usedFor, person: user, packet: outcome(packet) };
  if (link.expiresAt <= deps.now()) return { state: "expired", expiresAt: link.expiresAt };
  if (packet.status !== "PENDING") return { state: "decided", packet: outcome(packet) };
  if (packet.digest !== link.digest) return { state: "changed" };
  return {
    state: "open",
    linkId: link.id,
    expiresAt: link.expiresAt,
    person: user,
    packet,
    choices: linkChoices(packet),
  };
}
