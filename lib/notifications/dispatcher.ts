import type { Db } from "@/lib/db";
import { queueGateCallbacks } from "@/lib/gates/callbacks";
import type { GateView } from "@/lib/gates/gate-view";
import type { Logger } from "@/lib/runtime/types";
import type { EgressPolicy } from "@/lib/tools/registered/egress";
import { getConfig } from "@/lib/config";
import { decisionLinksForRecipient } from "@/lib/decision-links/links-for-recipient";
import { publicBaseUrl, smtpSettingsFromEnv, type SmtpSettings } from "./config";
import { queueDeliveries } from "./events";
import { createSender, type Sender } from "./send";

// The notifications loop of a process: every pass (1) queues the deliveries that new facts call for
// (events.ts) and (2) sends the deliveries that are due, recording each attempt. It runs beside the
// worker, never inside a run: a receiver that is slow or down costs a delivery its retries, never a run
// a step. Any number of processes may run it on one database: a delivery is queued once (dedupKey) and
// claimed by one sender at a time (compare-and-set on its attempts; a claim runs out after claimMs, so a
// sender that died mid-send is retried — at least once, never silently lost: the webhook-id lets a
// receiver drop the repeat).

export type RetryPolicy = {
  /** The wait after the first failed attempt, doubled after each further one; default 10 s. */
  baseDelayMs: number;
  /** The longest wait between attempts; default 1 h. */
  maxDelayMs: number;
  /** Attempts before a delivery is recorded `failed`; default 8. */
  maxAttempts: number;
};

export type NotificationsOptions = {
  /** A function is read at every pass (the console's client follows DATABASE_URL). */
  db: Db | (() => Db);
  /** Where links point: TETHER_PUBLIC_URL, else this machine's port. */
  baseUrl?: string;
  logger: Logger;
  /** TETHER_SMTP_URL / TETHER_NOTIFY_FROM unless given (null: email deliveries fail, recorded). */
  smtp?: SmtpSettings | null;
  egress?: EgressPolicy;
  /** Between passes; default 2 s. 0: no timer, passes only through runOnce (tests). */
  intervalMs?: number;
  retry?: Partial<RetryPolicy>;
  /** How long a claimed delivery is held before another sender may try it; default 60 s. */
  claimMs?: number;
  /** The deadline of one send; default 10 s. */
  sendTimeoutMs?: number;
  /** Deliveries sent at once; default 8. */
  concurrency?: number;
  /** The clock deadlines and retries are kept by (the engine's); default the wall clock. */
  now?: () => Date;
  /** An open gate as GET /api/gates/:id shows it: given, decided gates' callbacks are queued too (lib/gates/callbacks.ts). */
  gateView?: (gateId: string) => Promise<GateView>;
};

export type PassResult = { queued: number; delivered: number; failed: number; retrying: number };

export type Notifications = {
  /** One pass now (or waits for the one under way, then runs one); never rejects. */
  runOnce(): Promise<PassResult>;
  /** No pass after this; resolves once the one under way has ended. */
  stop(): Promise<void>;
};

const DEFAULT_RETRY: RetryPolicy = { baseDelayMs: 10_000, maxDelayMs: 3_600_000, maxAttempts: 8 };
const DUE_BATCH = 50;

export const retryDelayMs = (policy: RetryPolicy, attempts: number) =>
  Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, attempts - 1));

export function startNotifications(opts: NotificationsOptions): Notifications {
  const db = typeof opts.db === "function" ? opts.db : () => opts.db as Db;
  const now = opts.now ?? (() => new Date());
  const baseUrl = opts.baseUrl ?? publicBaseUrl();
  const retry = { ...DEFAULT_RETRY, ...opts.retry };
  const sender = createSender({
    smtp: opts.smtp === undefined ? smtpSettingsFromEnv(getConfig(), baseUrl) : opts.smtp,
    egress: opts.egress,
    timeoutMs: opts.sendTimeoutMs,
    now,
    // Links expire by the wall clock, as the page that opens them reads it.
    decisionLinks: (email, packetId) => decisionLinksForRecipient(db(), { email, packetId, baseUrl }),
  });
  // The packets changed since the last pass, by the wall clock (changedAt is stamped with it). A started
  // process looks back a day for packets still waiting (the dedupKey keeps what was queued once).
  let cursor = new Date(Date.now() - 86_400_000);
  let stopped = false;
  let passes: Promise<unknown> = Promise.resolve(); // one pass at a time, in order
  let pending = 0;
  const empty = (): PassResult => ({ queued: 0, delivered: 0, failed: 0, retrying: 0 });

  async function pass(): Promise<PassResult> {
    const result = empty();
    try {
      const queued = await queueDeliveries(db(), { since: cursor, readAt: new Date(), now: now(), baseUrl });
      cursor = queued.cursor;
      result.queued = queued.queued;
      if (opts.gateView) result.queued += await queueGateCallbacks(db(), { now: now(), view: opts.gateView });
      Object.assign(
        result,
        await sendDue(db(), sender, {
          now,
          retry,
          claimMs: opts.claimMs ?? 60_000,
          concurrency: opts.concurrency ?? 8,
        }),
      );
    } catch (error) {
      opts.logger.error("notifications: pass failed (tried again at the next one)", {
        error: error instanceof Error ? error.message : String(error),
      });
    }
    return result;
  }

  const runOnce = (): Promise<PassResult> => {
    pending++;
    const next = passes
      .then(() => (stopped ? empty() : pass()))
      .finally(() => {
        pending--;
      });
    passes = next;
    return next;
  };

  const interval = opts.intervalMs ?? 2_000;
  const timer =
    interval > 0
      ? setInterval(() => {
          if (pending === 0) void runOnce();
        }, interval)
      : null;
  timer?.unref();

  return {
    runOnce,
    async stop() {
      stopped = true;
      if (timer) clearInterval(timer);
      await passes;
      sender.close();
    },
  };
}

type SendOptions = { now: () => Date; retry: RetryPolicy; claimMs: number; concurrency: number };

/** Claims the due deliveries one by one (compare-and-set), sends them and records each outcome. */
async function sendDue(db: Db, sender: Sender, opts: SendOptions): Promise<Omit<PassResult, "queued">> {
  const totals = { delivered: 0, failed: 0, retrying: 0 };
  const due = await db.notificationDelivery.findMany({
    where: { status: "pending", nextAttemptAt: { lte: opts.now() } },
    orderBy: [{ nextAttemptAt: "asc" }, { id: "asc" }],
    take: DUE_BATCH,
    select: {
      id: true,
      attempts: true,
      payload: true,
      channel: { select: { kind: true, target: true, secret: true, disabledAt: true } },
    },
  });
  const queue = [...due];
  const work = async () => {
    for (let delivery = queue.shift(); delivery; delivery = queue.shift()) {
      const outcome = await sendOne(db, sender, delivery, opts);
      if (outcome) totals[outcome]++;
    }
  };
  await Promise.all(Array.from({ length: Math.min(opts.concurrency, queue.length) }, work));
  return totals;
}

type DueDelivery = {
  id: string;
  attempts: number;
  payload: string;
  channel: { kind: string; target: string; secret: string | null; disabledAt: Date | null };
};

async function sendOne(
  db: Db,
  sender: Sender,
  delivery: DueDelivery,
  opts: SendOptions,
): Promise<keyof Omit<PassResult, "queued"> | null> {
  const at = opts.now();
  const attempts = delivery.attempts + 1;
  const claim = await db.notificationDelivery.updateMany({
    where: { id: delivery.id, status: "pending", attempts: delivery.attempts, nextAttemptAt: { lte: at } },
    data: { attempts, nextAttemptAt: new Date(at.getTime() + opts.claimMs) },
  });
  if (claim.count === 0) return null; // another sender has it
  const result = delivery.channel.disabledAt
    ? { ok: false as const, error: "the channel was removed", isRetryable: false }
    : await sender.send(delivery.channel, delivery);
  const done = opts.now();
  const mine = { id: delivery.id, status: "pending", attempts };
  if (result.ok) {
    await db.notificationDelivery.updateMany({
      where: mine,
      data: { status: "delivered", deliveredAt: done, nextAttemptAt: null, lastError: null },
    });
    return "delivered";
  }
  const isLast = !result.isRetryable || attempts >= opts.retry.maxAttempts;
  await db.notificationDelivery.updateMany({
    where: mine,
    data: isLast
      ? { status: "failed", lastError: result.error, nextAttemptAt: null }
      : { lastError: result.error, nextAttemptAt: new Date(done.getTime() + retryDelayMs(opts.retry, attempts)) },
  });
  return isLast ? "failed" : "retrying";
}
