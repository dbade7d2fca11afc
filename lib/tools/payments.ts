import { z } from "zod";
import type { ToolDefinition } from "@/lib/runtime";
import { formatMoney } from "./format";
import type { SandboxClient } from "./http";
import { sandboxEffect } from "./sandbox-tool";

// Payments: refunds with Stripe-style idempotency keys (the same key returns the first result and
// refunds nothing new), so a refund whose outcome is unknown is simply retried with its key.

export const refundInputSchema = z.object({
  orderId: z.string().trim().min(1, "Give the order id to refund."),
  amountCents: z
    .number({ error: "Give the amount in cents, e.g. 24000 for $240.00." })
    .int("The amount is in whole cents.")
    .positive("The amount must be more than zero."),
  /** Not sent to the payment system: the card the money goes back to, so the impact can name it. */
  cardLast4: z.string().regex(/^\d{4}$/, "Give the last four digits of the card, e.g. 4242."),
  currency: z.string().trim().length(3, "Use a three-letter currency code, e.g. usd.").optional(),
});

export const refundSchema = z.object({
  refundId: z.string(),
  orderId: z.string(),
  amountCents: z.number().int(),
  status: z.string(),
  cardLast4: z.string(),
});
export type Refund = z.infer<typeof refundSchema>;

export function paymentTools(client: SandboxClient): ToolDefinition[] {
  const refund = sandboxEffect(client, {
    name: "payments.refund",
    description:
      "Refund money on an order to the card it was paid with. Idempotent: a retry with the same key refunds nothing new. Declined (402) when it would refund more than was paid.",
    capability: "execute",
    semantics: "idempotent",
    input: refundInputSchema,
    output: refundSchema,
    impact: ({ amountCents, cardLast4, currency }) =>
      `refunds ${formatMoney(amountCents, currency)} to card •${cardLast4}`,
    post: "/payments/refunds",
    body: ({ orderId, amountCents }) => ({ orderId, amountCents }),
    receiptId: (r) => r.refundId,
    // A reviewer may lower (or raise) the amount, never send the money to another order's card.
    editableFields: ["amountCents", "currency"],
  });
  return [refund];
}
