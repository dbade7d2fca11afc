import { defineAgent, definePlan, isTurnedDown, readRun, stepOf, z, type Decision, type RunReader } from "@/lib/sdk";
import { formatMoney, refusedStatus, type Order, type OrderHistory, type Refund, type SentMail } from "@/lib/tools";

// refund-agent: reads an order and the customer's history, decides a refund, refunds (idempotent
// payments; over $100 a person approves), then emails the customer.
//
// Facts it keeps: order, history (observations) → assessment (inference: what to do and why) →
// refund (receipt) → mail (receipt). Every decision below is a function of those facts and of the
// newest observation, so a resumed run takes the same path.

export const REFUND_APPROVAL_LIMIT_CENTS = 10_000;
/** Refunds on this many earlier orders make the proposal "high uncertainty" for the reviewer. */
export const MANY_REFUNDS = 2;

export const refundAgentInputSchema = z.object({
  orderId: z.string().trim().min(1, "Give the order id, e.g. ord_1001."),
  reason: z.string().trim().max(500, "Keep the reason under 500 characters.").optional(),
});
export type RefundAgentInput = z.infer<typeof refundAgentInputSchema>;

/** What the agent decided to do, and why: an inference, shown to the reviewer as evidence. */
export type RefundAssessment = {
  action: "refund" | "store_credit" | "none";
  amountCents: number;
  currency: string;
  reasoning: string;
  uncertainty: "low" | "medium" | "high";
  priorRefunds: Array<{ orderId: string; refundedCents: number }>;
  instruction?: string;
};

const plan = definePlan({
  "read-order": "Read the order",
  "read-history": "Read the customer's order history",
  decide: "Decide the refund",
  refund: "Refund to the card",
  notify: "Email the customer",
});

const INSTRUCTIONS = `You handle refund requests. Read the order and the customer's order history. Refund what is left
to refund on the order, in full, unless the history shows a pattern of refunds: then still propose it, but say
your uncertainty is high and cite the earlier refunds. Refunds over ${formatMoney(REFUND_APPROVAL_LIMIT_CENTS)} are approved by a person.
Then email the customer what happened. If a person rejects the refund, stop and say why. If a person redirects
you (for example to offer store credit), follow the instruction.`;

export function assessRefund(
  order: Order,
  history: OrderHistory,
  reason: string | undefined,
  instruction: string | undefined,
): RefundAssessment {
  const remaining = order.amountCents - order.refundedCents;
  const priorRefunds = history.orders
    .filter((o) => o.id !== order.id && o.refundedCents > 0)
    .map((o) => ({ orderId: o.id, refundedCents: o.refundedCents }));
  const base = { currency: order.currency, priorRefunds, amountCents: remaining };
  const why = reason ? ` The customer says: "${reason}".` : "";

  if (instruction) {
    const said = `A reviewer redirected the refund: "${instruction}".`;
    if (/store[\s-]*credit/i.test(instruction)) {
      return {
        ...base,
        action: "store_credit",
        uncertainty: "low",
        instruction,
        reasoning: `${said} Offering ${formatMoney(remaining, order.currency)} in store credit instead of a refund to the card.`,
      };
    }
    if (/\b(no|not|don'?t|never|deny|decline)\b.*\brefund/i.test(instruction)) {
      return {
        ...base,
        action: "none",
        amountCents: 0,
        uncertainty: "low",
        instruction,
        reasoning: `${said} No refund.`,
      };
    }
    const amount = /\$\s?(\d+(?:\.\d{1,2})?)/.exec(instruction);
    if (amount) {
      const cents = Math.round(Number(amount[1]) * 100);
      return {
        ...base,
        action: "refund",
        amountCents: cents,
        uncertainty: "low",
        instruction,
        reasoning: `${said} Refunding ${formatMoney(cents, order.currency)} as instructed.`,
      };
    }
    return {
      ...base,
      action: "none",
      amountCents: 0,
      uncertainty: "high",
      instruction,
      reasoning: `${said} This agent follows instructions to offer store credit, refund a stated amount or not refund; it left this one to a person.`,
    };
  }
  if (remaining <= 0) {
    return {
      ...base,
      action: "none",
      amountCents: 0,
      uncertainty: "low",
      reasoning: `Order ${order.id} is already fully refunded (${formatMoney(order.refundedCents, order.currency)}).`,
    };
  }
  const full =
    order.refundedCents === 0
      ? "in full"
      : `the remaining ${formatMoney(remaining, order.currency)} (already refunded: ${formatMoney(order.refundedCents, order.currency)})`;
  if (priorRefunds.length >= MANY_REFUNDS) {
    const list = priorRefunds.map((r) => `${r.orderId} (${formatMoney(r.refundedCents, order.currency)})`).join(", ");
    return {
      ...base,
      action: "refund",
      uncertainty: "high",
      reasoning: `Order ${order.id} qualifies for a refund ${full}, but ${priorRefunds.length} of ${order.customerName}'s other orders were refunded too: ${list}. Proposed, for a person to weigh the pattern.${why}`,
    };
  }
  return {
    ...base,
    action: "refund",
    uncertainty: priorRefunds.length > 0 ? "medium" : "low",
    reasoning: `Order ${order.id} (${formatMoney(order.amountCents, order.currency)}, ${order.status}) qualifies for a refund ${full}; ${priorRefunds.length === 0 ? "no earlier refunds" : "one earlier refund"} in the customer's history.${why}`,
  };
}

/** The customer of the order the run was started for: the email on the order orders.get read. */
const ORDER_CUSTOMER = { $fact: "order", path: "customerEmail", tool: "orders.get" };

function decide(input: RefundAgentInput, run: RunReader): Decision {
  const orderFact = run.fact("order");
  const historyFact = run.fact("history");
  const assessmentFact = run.fact("assessment");
  const order = orderFact?.value as Order | undefined;
  const history = historyFact?.value as OrderHistory | undefined;
  // The evidence changed while a person looked at it: read it again, decide again, propose again.
  const staleStep = run.lastStep("stale", "payments.refund");

  if (!order || stepOf(orderFact) <= staleStep) {
    return run.callUnlessFailed(stepOf(orderFact), `Could not read order ${input.orderId}`, {
      tool: "orders.get",
      args: { orderId: input.orderId },
      resultKey: "order",
      planStep: "read-order",
    });
  }
  if (!history || stepOf(historyFact) <= staleStep) {
    return run.callUnlessFailed(stepOf(historyFact), `Could not read ${order.customerEmail}'s order history`, {
      tool: "orders.history",
      args: { email: order.customerEmail },
      resultKey: "history",
      planStep: "read-history",
    });
  }

  const redirectStep = run.lastStep("redirected", "payments.refund");
  if (!assessmentFact || stepOf(assessmentFact) < Math.max(stepOf(orderFact), stepOf(historyFact), redirectStep)) {
    const instruction = run.redirect();
    const assessment = assessRefund(order, history, input.reason, instruction);
    const refundStatus = assessment.action === "refund" ? "active" : "skipped";
    return {
      kind: "record",
      facts: [{ key: "assessment", value: assessment }],
      plan: plan({
        "read-order": "done",
        "read-history": "done",
        decide: "done",
        refund: refundStatus,
        notify: assessment.action === "refund" ? "pending" : "active",
      }),
      reason: assessment.reasoning,
    };
  }
  const assessment = assessmentFact.value as RefundAssessment;
  const refundFact = run.fact("refund");
  const refund = refundFact?.kind === "receipt" ? (refundFact.value as Refund) : undefined;
  const money = (cents: number) => formatMoney(cents, order.currency);

  if (assessment.action === "none") {
    return run.complete(
      plan({ "read-order": "done", "read-history": "done", decide: "done", refund: "skipped", notify: "skipped" }),
      {
        refunded: false,
        orderId: order.id,
        reason: assessment.reasoning,
      },
    );
  }

  if (assessment.action === "refund" && !refundFact) {
    const reply = run.outcome("payments.refund", stepOf(assessmentFact));
    const stop = (output: Record<string, unknown>) =>
      run.complete(
        plan({ "read-order": "done", "read-history": "done", decide: "done", refund: "failed", notify: "skipped" }),
        { refunded: false, orderId: order.id, ...output },
      );
    if (reply && isTurnedDown(reply)) return stop({ reason: reply.message });
    if (reply?.kind === "resolved") return stop({ reason: reply.message }); // a person confirmed it never happened
    if (reply?.kind === "tool_error" && refusedStatus(reply.data) === 402)
      return stop({ declined: true, reason: `The payment provider declined the refund: ${reply.message}` });
    return run.callUnlessFailed(stepOf(assessmentFact), `The refund of ${order.id} failed`, {
      tool: "payments.refund",
      args: {
        orderId: order.id,
        amountCents: assessment.amountCents,
        cardLast4: order.cardLast4,
        currency: order.currency,
      },
      resultKey: "refund",
      planStep: "refund",
      reasoning: assessment.reasoning,
      uncertainty:
        assessment.uncertainty === "high"
          ? `high — ${assessment.priorRefunds.length} earlier refunds: ${assessment.priorRefunds.map((r) => r.orderId).join(", ")}`
          : assessment.uncertainty,
      evidence: ["order", "history", "assessment"],
    });
  }

  // The refund happened (a receipt, or a person vouched for it), or store credit was chosen: tell the customer.
  const mailFact = run.fact("mail");
  const refundDone = assessment.action === "refund" ? "done" : "skipped";
  const amount = refund?.amountCents ?? assessment.amountCents;
  const mailed = () => ({
    orderId: order.id,
    ...(assessment.action === "store_credit"
      ? {
          refunded: false,
          storeCredit: { amountCents: assessment.amountCents, currency: order.currency },
          instruction: assessment.instruction,
        }
      : { refunded: true, refundId: refund?.refundId ?? null, amountCents: amount, cardLast4: order.cardLast4 }),
    uncertainty: assessment.uncertainty,
  });
  if (!mailFact) {
    const reply = run.outcome("mail.send", Math.max(stepOf(refundFact), stepOf(assessmentFact)));
    if (reply && reply.kind !== "tool_result") {
      return run.complete(
        plan({ "read-order": "done", "read-history": "done", decide: "done", refund: refundDone, notify: "failed" }),
        {
          ...mailed(),
          notified: false,
          notifyError: reply.message,
        },
      );
    }
    const mail =
      assessment.action === "store_credit"
        ? {
            subject: `Store credit for your order ${order.id}`,
            body: `Hi ${order.customerName},\n\nInstead of a refund to your card, we have added ${money(assessment.amountCents)} in store credit to your account for order ${order.id}.\n\nThank you for your patience.`,
          }
        : {
            subject: `Your refund for order ${order.id}`,
            body: `Hi ${order.customerName},\n\nWe have refunded ${money(amount)} to your card ending in ${order.cardLast4}${refund ? ` (refund ${refund.refundId})` : ""}. It usually shows on your statement within 5–10 business days.\n\nThank you for your patience.`,
          };
    return {
      kind: "call",
      tool: "mail.send",
      args: { to: order.customerEmail, ...mail },
      resultKey: "mail",
      planStep: "notify",
      reasoning: `Tell ${order.customerName} about the ${assessment.action === "store_credit" ? "store credit" : "refund"}.`,
      evidence: assessment.action === "store_credit" ? ["assessment"] : ["refund"],
    };
  }
  const sent = mailFact.value as Partial<SentMail>;
  return run.complete(
    plan({ "read-order": "done", "read-history": "done", decide: "done", refund: refundDone, notify: "done" }),
    {
      ...mailed(),
      notified: true,
      messageId: sent.messageId ?? null,
    },
  );
}

export const refundAgent = defineAgent({
  slug: "refund-agent",
  label: "1",
  source: import.meta.url, // its code is part of its version: an edit here or in a local import is a new version
  name: "Refund agent",
  description:
    "Reads an order and the customer's history, decides a refund (over $100 a person approves), refunds it idempotently and emails the customer.",
  instructions: INSTRUCTIONS,
  input: refundAgentInputSchema,
  tools: ["orders.get", "orders.history", "payments.refund", "mail.send"],
  gates: {
    "payments.refund": {
      when: { path: "amountCents", op: "gt", value: REFUND_APPROVAL_LIMIT_CENTS },
      queue: "refunds",
    },
  },
  // Least authority, enforced by the engine: it reads and refunds only the order it was started for, and
  // mails (and reads the history of) only that order's customer. The email is not in the input: it is
  // the one the order read by orders.get gave — an observation of the input's order, never an inference.
  grants: {
    "orders.get": { capabilities: ["read"], bind: { orderId: { $input: "orderId" } } },
    "orders.history": { capabilities: ["read"], bind: { email: ORDER_CUSTOMER } },
    "payments.refund": { capabilities: ["execute"], bind: { orderId: { $input: "orderId" } }, freshEvidence: true },
    "mail.send": { capabilities: ["execute"], bind: { to: ORDER_CUSTOMER } },
  },
  plan: plan.steps,
  maxSteps: 40,
  exampleInput: {
    orderId: "ord_1001",
    reason: "Cancelled within the hour, but the card was still charged (ticket tkt_2001).",
  },
  policy: ({ state }) => decide(refundAgentInputSchema.parse(state.input), readRun(state)),
});
