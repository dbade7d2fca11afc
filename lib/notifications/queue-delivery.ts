import type { Db } from "@/lib/db";
import { isUniqueViolation } from "@/lib/store/records";

/** A delivery for the outbox: sent by the notifications loop from `now`, with its retries and its record. */
export type NewDelivery = {
  id: string;
  channelId: string;
  event: string;
  packetId: string | null;
  runId: string | null;
  /** Unique: the same delivery is queued once, whichever dispatcher (in whichever process) gets there first. */
  dedupKey: string;
  payload: unknown;
  now: Date;
};

/** Queues one delivery; false when its dedupKey was queued already (here or by another dispatcher). */
export async function queueDelivery(db: Db, delivery: NewDelivery): Promise<boolean> {
  const { now, payload, ...row } = delivery;
  try {
    await db.notificationDelivery.create({
      data: { ...row, payload: JSON.stringify(payload), status: "pending", nextAttemptAt: now },
      select: { id: true },
    });
    return true;
  } catch (error) {
    if (!isUniqueViolation(error)) throw error; // another dispatcher queued it first
    return false;
  }
}
