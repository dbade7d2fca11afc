// The inbox's change feed: which packets were opened, decided, assigned or expired since a cursor, so an
// open inbox and the navigation's badge poll a few hundred bytes and re-read their page only when
// something moved (a poll costs what changed, not what waits).
//
// The cursor is the server's clock when a poll read, and a poll reads every packet written in the
// OVERLAP_MS before it: a transaction stamps changedAt before it commits, so a write that commits late
// (up to OVERLAP_MS after its stamp) is still seen. A change is therefore reported more than once; the
// client tells news by (id, version). Writers stamp with their wall clock (lib/store/rows.ts): the
// processes of one deployment must agree on the time within OVERLAP_MS (NTP does far better).
import type { Db } from "@/lib/db";

export const OVERLAP_MS = 5_000;
/** A burst larger than this reports `more`: the client re-reads its page anyway, the ids are not needed. */
export const MAX_CHANGES = 200;

export type PacketChange = { id: string; status: string; version: number };
export type PacketChanges = { cursor: string; changes: PacketChange[]; more: boolean };

/** "<ms>": opaque to the browser; anything else starts the feed now (the client has just read its page). */
function parseSince(since: string | undefined): number | undefined {
  return since && /^\d{1,15}$/.test(since) ? Number(since) : undefined;
}

export async function findPacketChanges(
  db: Db,
  since: string | undefined,
  now: () => Date = () => new Date(),
): Promise<PacketChanges> {
  const readAt = now().getTime();
  const from = parseSince(since);
  if (from === undefined) return { cursor: String(readAt), changes: [], more: false };
  const rows = await db.decisionPacket.findMany({
    where: { changedAt: { gt: new Date(Math.min(from, readAt) - OVERLAP_MS) } },
    select: { id: true, status: true, version: true },
    orderBy: { changedAt: "asc" },
    take: MAX_CHANGES + 1,
  });
  return { cursor: String(readAt), changes: rows.slice(0, MAX_CHANGES), more: rows.length > MAX_CHANGES };
}
