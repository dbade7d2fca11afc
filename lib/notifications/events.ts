import { newRecordId } from "@/lib/runtime/record-id";
import { z } from "zod";
import type { Db } from "@/lib/db";
import { OVERLAP_MS } from "@/lib/queries/packet-changes";
import { packetLink, type NotificationEvent } from "./config";
import { queueDelivery } from "./queue-delivery";

// From what the engine already recorded to the deliveries it calls for: an outbox, filled by reading
// decision packets, never by the engine (a run never waits for a notification).
//   packet.opened        a packet waits in the queue (asked there, or moved there by a person)
//   packet.escalated     a packet was escalated into the queue when it expired in another
//   packet.expiring      a waiting packet's deadline is near (the last 10% of its time, at most 15 minutes)
//   run.needs_attention  a run stopped on an effect whose outcome is unknown (its packet, queue "attention")
// Opened, escalated and attention are found in the packets written since the last pass (changedAt, read
// with the inbox feed's overlap: a late commit is still seen); expiring in the pending packets whose
// deadline falls in the next window. Each (channel, event, packet) is one row with a unique dedupKey, so
// passes that read a packet again, and dispatchers in other processes, never queue it twice.

const PAGE = 200;
export const MAX_EXPIRING_WINDOW_MS = 15 * 60_000;
const MIN_EXPIRING_WINDOW_MS = 30_000;

/** How long before its deadline a packet counts as about to expire: 10% of its time, from 30 s to 15 min. */
export function expiringWindowMs(createdAt: Date, expiresAt: Date): number {
  const ttl = expiresAt.getTime() - createdAt.getTime();
  return Math.min(MAX_EXPIRING_WINDOW_MS, Math.max(MIN_EXPIRING_WINDOW_MS, ttl * 0.1));
}

type Channel = { id: string; workspaceId: string; queue: string; events: NotificationEvent[]; createdAt: Date };
type PacketRow = {
  id: string;
  workspaceId: string;
  runId: string;
  kind: string;
  tool: string;
  digest: string;
  queue: string;
  requestedBy: string;
  packet: string;
  createdAt: Date;
  changedAt: Date;
  expiresAt: Date | null;
};

const packetSelect = {
  id: true,
  workspaceId: true,
  runId: true,
  kind: true,
  tool: true,
  digest: true,
  queue: true,
  requestedBy: true,
  packet: true,
  createdAt: true,
  changedAt: true,
  expiresAt: true,
} as const;
const contentSchema = z
  .object({ impact: z.string().catch(""), escalatedFrom: z.string().optional().catch(undefined) })
  .catch({ impact: "", escalatedFrom: undefined });

/** The payload every channel renders (webhooks send it as it is): Standard Webhooks' {type, timestamp, data}. */
export type NotificationPayload = {
  type: NotificationEvent;
  timestamp: string;
  data: {
    packetId: string;
    runId: string;
    queue: string;
    tool: string;
    impact: string;
    requestedBy: string;
    expiresAt: string | null;
    link: string;
    escalatedFrom?: string;
    /** The packet's action digest: Slack's buttons carry it, so a click decides only the action it showed. */
    digest?: string;
  };
};

type Candidate = { channel: Channel; event: NotificationEvent; packet: PacketRow };

export type QueueResult = { cursor: Date; queued: number };

/**
 * Writes the deliveries that the packets changed since `since` (and the ones about to expire) call for.
 * `since` and `readAt` are wall-clock times, as changedAt is (writers stamp it with theirs); `now` is the
 * clock deadlines are kept by (the engine's). Returns the next cursor (`readAt`) and how many deliveries
 * this call created.
 */
export async function queueDeliveries(
  db: Db,
  opts: { since: Date; readAt: Date; now: Date; baseUrl: string },
): Promise<QueueResult> {
  const channels = await findActiveChannels(db);
  if (channels.length === 0) return { cursor: opts.readAt, queued: 0 };
  // A queue is its workspace's: a packet is told to the channels of its own workspace's queue only.
  const queueOf = (row: { workspaceId: string; queue: string }) => `${row.workspaceId}\u0000${row.queue}`;
  const byQueue = new Map<string, Channel[]>();
  for (const channel of channels) byQueue.set(queueOf(channel), [...(byQueue.get(queueOf(channel)) ?? []), channel]);
  const queues = [...new Set(channels.map((c) => c.queue))];
  const candidates: Candidate[] = [];
  const add = (packet: PacketRow, event: NotificationEvent, when: (c: Channel) => boolean = () => true) => {
    for (const channel of byQueue.get(queueOf(packet)) ?? []) {
      if (channel.events.includes(event) && when(channel)) candidates.push({ channel, event, packet });
    }
  };
  for (const packet of await findChangedPackets(db, queues, new Date(opts.since.getTime() - OVERLAP_MS))) {
    // Told about what happened once the channel existed, not about what waited before it.
    const afterChannel = (c: Channel) => packet.changedAt >= c.createdAt;
    if (packet.kind === "UNKNOWN_OUTCOME") add(packet, "run.needs_attention", afterChannel);
    else if (contentSchema.parse(JSON.parse(packet.packet)).escalatedFrom)
      add(packet, "packet.escalated", afterChannel);
    else add(packet, "packet.opened", afterChannel);
  }
  for (const packet of await findExpiringPackets(db, queues, opts.now)) {
    if (packet.expiresAt!.getTime() - opts.now.getTime() <= expiringWindowMs(packet.createdAt, packet.expiresAt!))
      add(packet, "packet.expiring");
  }
  const queued = await insertDeliveries(db, candidates, opts);
  return { cursor: opts.readAt, queued };
}

async function findActiveChannels(db: Db): Promise<Channel[]> {
  // An open gate's callback channel (lib/gates/callbacks.ts) is not a queue's: its one delivery is queued there.
  const rows = await db.notificationChannel.findMany({
    where: { disabledAt: null, NOT: { queue: { startsWith: "gate:" } } },
    select: { id: true, workspaceId: true, queue: true, events: true, createdAt: true },
  });
  return rows.map((r) => ({ ...r, events: JSON.parse(r.events) as NotificationEvent[] }));
}

/** Pending packets of these queues written after `from`, page by page in (changedAt, id) order. */
async function findChangedPackets(db: Db, queues: string[], from: Date): Promise<PacketRow[]> {
  const found: PacketRow[] = [];
  let after: { changedAt: Date; id: string } | null = null;
  for (;;) {
    const page: PacketRow[] = await db.decisionPacket.findMany({
      where: {
        status: "PENDING",
        queue: { in: queues },
        ...(after
          ? { OR: [{ changedAt: { gt: after.changedAt } }, { changedAt: after.changedAt, id: { gt: after.id } }] }
          : { changedAt: { gt: from } }),
      },
      select: packetSelect,
      orderBy: [{ changedAt: "asc" }, { id: "asc" }],
      take: PAGE,
    });
    found.push(...page);
    if (page.length < PAGE) return found;
    after = page[page.length - 1];
  }
}

async function findExpiringPackets(db: Db, queues: string[], now: Date): Promise<PacketRow[]> {
  return db.decisionPacket.findMany({
    where: {
      status: "PENDING",
      queue: { in: queues },
      expiresAt: { gt: now, lte: new Date(now.getTime() + MAX_EXPIRING_WINDOW_MS) },
    },
    select: packetSelect,
    orderBy: { expiresAt: "asc" },
    take: 1000,
  });
}

export const dedupKeyOf = (c: Pick<Candidate, "event"> & { channel: { id: string }; packet: { id: string } }) =>
  `${c.channel.id}:${c.event}:${c.packet.id}`;

export function buildPayload(
  event: NotificationEvent,
  packet: PacketRow,
  opts: { now: Date; baseUrl: string },
): NotificationPayload {
  const content = contentSchema.parse(JSON.parse(packet.packet));
  return {
    type: event,
    timestamp: opts.now.toISOString(),
    data: {
      packetId: packet.id,
      runId: packet.runId,
      queue: packet.queue,
      tool: packet.tool,
      impact: content.impact || packet.tool,
      requestedBy: packet.requestedBy,
      expiresAt: packet.expiresAt?.toISOString() ?? null,
      link: packetLink(opts.baseUrl, packet.id),
      digest: packet.digest,
      ...(content.escalatedFrom ? { escalatedFrom: content.escalatedFrom } : {}),
    },
  };
}

/** One row per new (channel, event, packet); a key already queued (here or by another dispatcher) is skipped. */
async function insertDeliveries(
  db: Db,
  candidates: Candidate[],
  opts: { now: Date; baseUrl: string },
): Promise<number> {
  if (candidates.length === 0) return 0;
  const keys = candidates.map(dedupKeyOf);
  const existing = new Set<string>();
  for (let i = 0; i < keys.length; i += 500) {
    const rows = await db.notificationDelivery.findMany({
      where: { dedupKey: { in: keys.slice(i, i + 500) } },
      select: { dedupKey: true },
    });
    for (const row of rows) existing.add(row.dedupKey);
  }
  let queued = 0;
  for (const candidate of candidates) {
    const dedupKey = dedupKeyOf(candidate);
    if (existing.has(dedupKey)) continue;
    existing.add(dedupKey);
    const isQueued = await queueDelivery(db, {
      id: newRecordId("msg"),
      channelId: candidate.channel.id,
      event: candidate.event,
      packetId: candidate.packet.id,
      runId: candidate.packet.runId,
      dedupKey,
      payload: buildPayload(candidate.event, candidate.packet, opts),
      now: opts.now,
    });
    if (isQueued) queued++;
  }
  return queued;
}
