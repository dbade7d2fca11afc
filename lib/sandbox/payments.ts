import { z } from "zod";
import type { Db } from "@/lib/db";
import { notFound, sandboxError } from "./errors";
import { newId } from "./ids";
import { recordEffect, type Caller, type Tx } from "./ledger";
import { orderStatusFor } from "./orders";

// The payment provider: refunds and charges with Stripe-style idempotency keys.
// - The first request with a key is applied (or declined) and its response stored with the key.
// - The same key with the same parameters returns that stored response and applies nothing new,
//   including a stored decline. The same key with other parameters is a 409 `conflict`.
// - A request that never got that far (unknown order, bad input) stores nothing, so it can be retried.
// The effect, the stored response and the ledger row commit together. Two requests racing with one key:
// the unique key lets only one commit; the other replays its response.

export const paymentRequestSchema = z.strictObject({
  orderId: z.string().trim().min(1).max(100),
  amountCents: z.int().positive().max(100_000_000),
});
export type PaymentRequestInput = z.infer<typeof paymentRequestSchema>;

export type PaymentCommand = PaymentRequestInput & { idempotencyKey: string; caller: Caller };

export type Refund = { refundId: string; orderId: string; amountCents: number; status: "succeeded"; cardLast4: string };
export type Charge = { chargeId: string; orderId: string; amountCents: number; status: "succeeded"; cardLast4: string };
export type PaymentOutcome<T> = { receipt: T; replayed: boolean };

/** Stripe's test card that declines every charge. */
export const DECLINING_CARD = "0002";

export function refundPayment(db: Db, command: PaymentCommand): Promise<PaymentOutcome<Refund>> {
  return applyPayment<Refund>(db, "refund", command);
}

export function chargePayment(db: Db, command: PaymentCommand): Promise<PaymentOutcome<Charge>> {
  return applyPayment<Charge>(db, "charge", command);
}

type Kind = "refund" | "charge";
type Attempt = { receipt: unknown } | { declined: string } | "raced";

const dollars = (cents: number) => `$${(cents / 100).toFixed(2)}`;

async function applyPayment<T>(db: Db, kind: Kind, command: PaymentCommand): Promise<PaymentOutcome<T>> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const stored = await db.sandboxPayment.findUnique({ where: { idempotencyKey: command.idempotencyKey } });
    if (stored) return { receipt: replay(stored, kind, command) as T, replayed: true };
    let outcome: Attempt;
    try {
      outcome = await db.$transaction((tx) =>
        kind === "refund" ? attemptRefund(tx, command) : attemptCharge(tx, command),
      );
    } catch (error) {
      if (isUniqueViolation(error)) continue; // a concurrent request with this key committed first: replay it
      throw error;
    }
    if (outcome === "raced") continue; // the order changed under us: decide again on fresh numbers
    if ("declined" in outcome) throw sandboxError("DECLINED", outcome.declined);
    return { receipt: outcome.receipt as T, replayed: false };
  }
  throw sandboxError("CONFLICT", `Order '${command.orderId}' is changing concurrently; retry the request.`);
}

function replay(
  stored: { kind: string; orderId: string; amountCents: number; status: string; response: string },
  kind: Kind,
  command: PaymentCommand,
): unknown {
  if (stored.kind !== kind || stored.orderId !== command.orderId || stored.amountCents !== command.amountCents) {
    throw sandboxError(
      "CONFLICT",
      `Idempotency-Key '${command.idempotencyKey}' was already used for a ${stored.kind} of ${stored.amountCents} cents on order '${stored.orderId}'; use a new key for a different request.`,
    );
  }
  const response = JSON.parse(stored.response) as { error?: { message: string } };
  if (stored.status === "declined") throw sandboxError("DECLINED", response.error?.message ?? "Declined.");
  return response;
}

async function attemptRefund(tx: Tx, command: PaymentCommand): Promise<Attempt> {
  const order = await tx.sandboxOrder.findUnique({ where: { id: command.orderId } });
  if (!order) throw notFound("order", command.orderId);
  const refundable = order.amountCents - order.refundedCents;
  if (command.amountCents > refundable) {
    const message =
      refundable === 0
        ? `Order '${order.id}' is already fully refunded.`
        : `A refund of ${dollars(command.amountCents)} exceeds the ${dollars(refundable)} still refundable on order '${order.id}'.`;
    return storeDecline(tx, "refund", command, message);
  }
  const refundedCents = order.refundedCents + command.amountCents;
  const { count } = await tx.sandboxOrder.updateMany({
    where: { id: order.id, refundedCents: order.refundedCents },
    data: { refundedCents, status: orderStatusFor(order.amountCents, refundedCents) },
  });
  if (count === 0) return "raced";
  return storeSuccess(tx, "refund", command, order.cardLast4);
}

async function attemptCharge(tx: Tx, command: PaymentCommand): Promise<Attempt> {
  const order = await tx.sandboxOrder.findUnique({ where: { id: command.orderId } });
  if (!order) throw notFound("order", command.orderId);
  if (order.cardLast4 === DECLINING_CARD) {
    return storeDecline(tx, "charge", command, `The card ending in ${order.cardLast4} was declined.`);
  }
  return storeSuccess(tx, "charge", command, order.cardLast4);
}

/** Where each kind's receipt keeps its id, and the id's prefix (Stripe's `re_…`, `ch_…`). */
const RECEIPT_ID = {
  refund: { field: "refundId", prefix: "re" },
  charge: { field: "chargeId", prefix: "ch" },
} as const satisfies Record<Kind, { field: keyof Refund | keyof Charge; prefix: string }>;

/** The payment went through: its receipt (a Refund or a Charge), stored with the key, and its ledger row. */
async function storeSuccess(tx: Tx, kind: Kind, command: PaymentCommand, cardLast4: string): Promise<Attempt> {
  const { field, prefix } = RECEIPT_ID[kind];
  const id = newId(prefix);
  const receipt = {
    [field]: id,
    orderId: command.orderId,
    amountCents: command.amountCents,
    status: "succeeded",
    cardLast4,
  };
  await tx.sandboxPayment.create({
    data: {
      id,
      idempotencyKey: command.idempotencyKey,
      kind,
      orderId: command.orderId,
      amountCents: command.amountCents,
      status: "succeeded",
      response: JSON.stringify(receipt),
    },
  });
  await recordEffect(tx, {
    system: "payments",
    action: kind,
    // A caller that sends only the key is still traceable by it.
    caller: { runId: command.caller.runId, operationId: command.caller.operationId ?? command.idempotencyKey },
    data: { ...receipt, idempotencyKey: command.idempotencyKey },
  });
  return { receipt };
}

async function storeDecline(tx: Tx, kind: Kind, command: PaymentCommand, message: string): Promise<Attempt> {
  await tx.sandboxPayment.create({
    data: {
      id: newId(RECEIPT_ID[kind].prefix),
      idempotencyKey: command.idempotencyKey,
      kind,
      orderId: command.orderId,
      amountCents: command.amountCents,
      status: "declined",
      response: JSON.stringify({ error: { code: "declined", message } }),
    },
  });
  return { declined: message };
}

function isUniqueViolation(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { code?: unknown }).code === "P2002";
}
