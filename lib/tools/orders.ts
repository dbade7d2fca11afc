import { z } from "zod";
import type { ToolDefinition } from "@/lib/runtime";
import { seg, type SandboxClient } from "./http";
import { sandboxRead } from "./sandbox-tool";

// The shop's order system: reads only.

export const orderSchema = z.object({
  id: z.string(),
  customerEmail: z.string(),
  customerName: z.string(),
  amountCents: z.number().int(),
  currency: z.string(),
  cardLast4: z.string(),
  status: z.string(),
  refundedCents: z.number().int(),
});
export type Order = z.infer<typeof orderSchema>;

export const getOrderInputSchema = z.object({
  orderId: z.string().trim().min(1, "Give the order id, e.g. ord_1001."),
});

export const orderHistoryInputSchema = z.object({
  email: z.string().trim().email("Give the customer's email address."),
});

export const orderHistorySchema = z.object({ orders: z.array(orderSchema) });
export type OrderHistory = z.infer<typeof orderHistorySchema>;

const FIVE_MINUTES = 5 * 60_000;

export function orderTools(client: SandboxClient): ToolDefinition[] {
  const get = sandboxRead(client, {
    name: "orders.get",
    description: "Read one order: customer, amount, card, status and how much was already refunded.",
    input: getOrderInputSchema,
    output: orderSchema,
    freshnessMs: FIVE_MINUTES,
    impact: ({ orderId }) => `reads order ${orderId}`,
    get: ({ orderId }) => `/orders/${seg(orderId)}`,
  });
  const history = sandboxRead(client, {
    name: "orders.history",
    description: "List every order of a customer, with what was refunded on each.",
    input: orderHistoryInputSchema,
    output: orderHistorySchema,
    freshnessMs: FIVE_MINUTES,
    impact: ({ email }) => `reads the order history of ${email}`,
    get: ({ email }) => `/customers/${seg(email)}/orders`,
  });
  return [get, history];
}
