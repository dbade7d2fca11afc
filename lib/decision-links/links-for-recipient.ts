import type { Db } from "@/lib/db";
import { whyNotDecider } from "@/lib/inbox/queue-deciders";
import { packetLink } from "@/lib/notifications/config";
import type { PacketKind } from "@/lib/runtime/types";
import { issueDecisionLink } from "./issue-decision-link";
import { decisionLinkKey } from "./token";

// An email recipient's own links: issued only when the address is a person of this Tether who may decide
// the packet (role, queue deciders). Each email gets a fresh link (one token serves both "approve" and
// "reject": whichever is confirmed first uses it). Separation of duties is left to the decision itself.

export type RecipientLinks = { approve?: string; reject?: string; decide: string; open: string };

export async function decisionLinksForRecipient(
  db: Db,
  opts: { email: string; packetId: string; baseUrl: string; key?: Buffer; now?: Date },
): Promise<RecipientLinks | null> {
  const email = opts.email.trim().toLowerCase();
  const [user, packet] = await Promise.all([
    db.user.findUnique({ where: { email }, select: { id: true } }),
    db.decisionPacket.findUnique({
      where: { id: opts.packetId },
      select: { id: true, digest: true, status: true, queue: true, kind: true, workspaceId: true },
    }),
  ]);
  if (!user || !packet || packet.status !== "PENDING") return null;
  if (
    await whyNotDecider(db, email, {
      queue: packet.queue,
      kind: packet.kind as PacketKind,
      workspaceId: packet.workspaceId,
    })
  )
    return null;
  const link = await issueDecisionLink(db, {
    packet,
    userId: user.id,
    key: opts.key ?? decisionLinkKey(),
    now: opts.now,
  });
  const decide = decisionLinkUrl(opts.baseUrl, link.token);
  const isApproval = packet.kind === "APPROVAL";
  return {
    ...(isApproval ? { approve: `${decide}?choice=approve`, reject: `${decide}?choice=reject` } : {}),
    decide,
    open: packetLink(opts.baseUrl, packet.id),
  };
}

export const decisionLinkUrl = (baseUrl: string, token: string) => `${baseUrl}/d/${token}`;
