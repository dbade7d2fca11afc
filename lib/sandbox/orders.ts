import { z } from "zod";
import type { Db } from "@/lib/db";
import { notFound, sandboxError } from "./errors";
import { newId } from "./ids";

// Orders of the simulated shop, as its payment provider sees them. Agents only read them (refunds change
// them); `createOrder` is world set-up for tests and evals, so it writes no ledger row.

export type Order = {
  id: string;
  customerEmail: string;
  customerName: string;
  amountCents: number;
  currency: string;
  cardLast4: string;
  /** paid | partially_refunded | refunded */
  status: string;
  refundedCents: number;
  createdAt: string;
};

type OrderRow = Omit<Order, "createdAt"> & { createdAt: Date };

export function toOrder(row: OrderRow): Order {
  return {
    id: row.id,
    customerEmail: row.customerEmail,
    customerName: row.customerName,
    amountCents: row.amountCents,
    currency: row.currency,
    cardLast4: row.cardLast4,
    status: row.status,
    refundedCents: row.refundedCents,
    createdAt: row.createdAt.toISOString(),
  };
}

/** The status an order has once `refundedCents` of it are refunded. */
export function orderStatusFor(amountCents: number, refundedCents: number): string {
  if (refundedCents <= 0) return "paid";
  return refundedCents >= amountCents ? "refunded" : "partially_refunded";
}

export async function getOrder(db: Db, id: string): Promise<Order> {
  const row = await db.sandboxOrder.findUnique({ where: { id } });
  if (!row) throw notFound("order", id);
  return toOrder(row);
}

/** A customer's order history, newest first; an unknown customer simply has none. */
export async function findCustomerOrders(db: Db, email: string): Promise<Order[]> {
  const rows = await db.sandboxOrder.findMany({
    where: { customerEmail: email.trim().toLowerCase() },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
  });
  return rows.map(toOrder);
}

export const createOrderSchema = z.strictObject({
  id: z
    .string()
    .regex(/^ord_[\w-]{1,60}$/, "An order id looks like ord_<letters, digits, _ or ->.")
    .optional(),
  customerEmail: z.email().max(200).optional(),
  customerName: z.string().trim().min(1).max(100).default("Test Customer"),
  amountCents: z.number().int().positive().max(100_000_000),
  currency: z
    .string()
    .regex(/^[a-z]{3}$/, "A currency is a three-letter ISO code in lower case.")
    .default("usd"),
  cardLast4: z
    .string()
    .regex(/^\d{4}$/, "cardLast4 is four digits.")
    .default("4242"),
});
export type CreateOrderInput = z.input<typeof createOrderSchema>;

/** A paid order; without an email, for a new customer of its own (so it has no refund history). */
export async function createOrder(db: Db, input: z.infer<typeof createOrderSchema>): Promise<Order> {
  const id = input.id ?? newId("ord");
  if (await db.sandboxOrder.findUnique({ where: { id }, select: { id: true } })) {
    throw sandboxError("CONFLICT", `Order ${id} already exists.`);
  }
  const customerEmail = (input.customerEmail ?? `customer-${id.slice(4).toLowerCase()}@example.com`).toLowerCase();
  await db.sandboxOrder.createMany({
    data: [
      {
        id,
        customerEmail,
        customerName: input.customerName,
        amountCents: input.amountCents,
        currency: input.currency,
        cardLast4: input.cardLast4,
        status: "paid",
      },
    ],
  });
  return getOrder(db, id);
}
