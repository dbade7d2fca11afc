import type { Db } from "@/lib/db";
import { notFound } from "./errors";

// Orders of the simulated shop, as its payment provider sees them. Read-only here: refunds change them.

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
