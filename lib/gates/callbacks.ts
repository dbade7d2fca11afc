import { randomBytes } from "node:crypto";
import type { Db } from "@/lib/db";
import { DECIDED_PACKET_STATUSES } from "@/lib/runtime/types";
import { queueDelivery } from "@/lib/notifications/queue-delivery";
import { isUniqueViolation } from "@/lib/store/records";
import { isDecided, type GateView } from "./gate-view";

// An open gate's callback rides on the notifications outbox (lib/notifications): the gate's callbackUrl is a
// webhook channel of its own (queue "gate:<gateId>", event "gate.decided", its own whsec_ secret, returned
// once), and the notifications loop queues one delivery when the gate is decided or expired, then sends it
// signed the Standard Webhooks way, through the egress policy, with its retries and its record. The payload
// is the gate as GET /api/gates/:id shows it.

export const GATE_CALLBACK_EVENT = "gate.decided";
const GATE_QUEUE_PREFIX = "gate:";
const BATCH = 100;

export const gateCallbackQueue = (gateId: string) => `${GATE_QUEUE_PREFIX}${gateId}`;
export const isGateCallbackQueue = (queue: string) => queue.startsWith(GATE_QUEUE_PREFIX);
const channelIdOf = (gateId: string) => `ntc_gate_${gateId}`;

/** The gate's callback channel; its secret only when this call made it (a repeated request gets none). */
export async function createGateCallback(
  db: Db,
  opts: { gateId: string; url: string; by: string },
): Promise<{ secret: string | null }> {
  const secret = `whsec_${randomBytes(32).toString("base64")}`;
  try {
    await db.notificationChannel.create({
      data: {
        id: channelIdOf(opts.gateId),
        queue: gateCallbackQueue(opts.gateId),
        kind: "webhook",
        target: opts.url,
        secret,
        events: JSON.stringify([GATE_CALLBACK_EVENT]),
        createdBy: opts.by,
      },
      select: { id: true },
    });
    return { secret };
  } catch (error) {
    if (isUniqueViolation(error)) return { secret: null }; // made by the first request under the key
    throw error;
  }
}

/**
 * Queues the callbacks of the gates decided since their channel was made (one delivery per gate, under a
 * unique dedupKey, so passes and processes never queue it twice). `view` is the gate as the API shows it.
 */
export async function queueGateCallbacks(
  db: Db,
  opts: { now: Date; view: (gateId: string) => Promise<GateView> },
): Promise<number> {
  const channels = await db.notificationChannel.findMany({
    where: { queue: { startsWith: GATE_QUEUE_PREFIX }, disabledAt: null, deliveries: { none: {} } },
    select: { id: true, queue: true },
    take: 1000,
  });
  if (channels.length === 0) return 0;
  const gateIds = channels.map((c) => c.queue.slice(GATE_QUEUE_PREFIX.length));
  const decided = new Set<string>();
  for (let i = 0; i < gateIds.length; i += BATCH) {
    const rows = await db.decisionPacket.findMany({
      where: {
        runId: { in: gateIds.slice(i, i + BATCH) },
        kind: "APPROVAL",
        status: { in: [...DECIDED_PACKET_STATUSES] },
      },
      select: { runId: true },
    });
    for (const row of rows) decided.add(row.runId);
  }
  let queued = 0;
  for (const channel of channels) {
    const gateId = channel.queue.slice(GATE_QUEUE_PREFIX.length);
    if (!decided.has(gateId)) continue;
    const gate = await opts.view(gateId);
    if (!isDecided(gate.status)) continue; // a stale packet re-asked: the new one is still open
    const isQueued = await queueDelivery(db, {
      id: `msg_gate_${randomBytes(12).toString("hex")}`,
      channelId: channel.id,
      event: GATE_CALLBACK_EVENT,
      packetId: gate.packetId,
      runId: gateId,
      dedupKey: `${channel.id}:${GATE_CALLBACK_EVENT}`,
      payload: gate,
      now: opts.now,
    });
    if (isQueued) queued++;
  }
  return queued;
}
