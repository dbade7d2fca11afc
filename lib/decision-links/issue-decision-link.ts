import type { Db } from "@/lib/db";
import { linkToken, newLinkId, type LinkBinding } from "./token";

// Issuing a link records it (so "single-use" holds across console replicas: the row's usedAt is the one
// place a use is claimed) and returns its token. The token is not stored anywhere.

export const DEFAULT_LINK_TTL_MS = 24 * 60 * 60_000;

export type IssuedLink = { id: string; token: string; expiresAt: Date };

export async function issueDecisionLink(
  db: Pick<Db, "decisionLink">,
  opts: {
    packet: { id: string; digest: string; workspaceId: string };
    userId: string;
    key: Buffer;
    now?: Date;
    ttlMs?: number;
  },
): Promise<IssuedLink> {
  const now = opts.now ?? new Date();
  const link: LinkBinding = {
    id: newLinkId(),
    packetId: opts.packet.id,
    userId: opts.userId,
    digest: opts.packet.digest,
    expiresAt: new Date(now.getTime() + (opts.ttlMs ?? DEFAULT_LINK_TTL_MS)),
  };
  // In the packet's workspace, named here: the notifications loop that issues links enters none, and a link
  // row in another workspace than its packet's opens nothing (open-decision-link.ts looks in the link's).
  await db.decisionLink.createMany({ data: [{ ...link, workspaceId: opts.packet.workspaceId, createdAt: now }] });
  return { id: link.id, token: linkToken(opts.key, link), expiresAt: link.expiresAt };
}
