import {
  defineAgent,
  defineTool,
  isTurnedDown,
  latestFact,
  outcomeOf,
  ToolError,
  z,
  type ToolCallContext,
} from "@/lib/sdk";
import type { EvalSubject } from "@/lib/evals/subject";

// A team's own agent, written only with the SDK, for the journey evals (tests/evals-sdk-agent.int.test.ts):
// "credit-agent" looks an order up in the shop and credits what is left of it through billing. Its tools
// are its own (no built-in tool): they speak plain HTTP to the trial's world and declare the ledger entry
// their effect leaves, which is all the harness needs to count, compare and time out their effects.
// Loaded by path (the crash trials' worker processes import it too): the default export is the subject.

type Order = { id: string; amountCents: number; refundedCents: number };
type Credit = { refundId: string; orderId: string; amountCents: number };

async function send<T>(url: string, ctx: ToolCallContext, init: RequestInit = {}): Promise<T> {
  let res: Response;
  try {
    res = await fetch(url, {
      ...init,
      // The world attributes an effect to the run and the operation that asked for it.
      headers: {
        "content-type": "application/json",
        "x-tether-run-id": ctx.runId,
        "x-tether-operation-id": ctx.operationId,
        ...init.headers,
      },
      signal: AbortSignal.timeout(15_000),
    });
  } catch (error) {
    throw new ToolError("network", `${url}: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (res.status >= 500) throw new ToolError("server", `${url}: HTTP ${res.status}`);
  if (!res.ok) throw new ToolError("rejected", `${url}: HTTP ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

export function creditTools(sandboxUrl: string | (() => string)) {
  const base = () => (typeof sandboxUrl === "function" ? sandboxUrl() : sandboxUrl);
  return [
    defineTool<{ orderId: string }, Order>({
      name: "shop.get_order",
      description: "An order of the shop: amount and what was refunded already.",
      capability: "read",
      semantics: "pure-read",
      input: z.object({ orderId: z.string() }),
      impact: ({ orderId }) => `reads order ${orderId}`,
      run: ({ orderId }, ctx) => send<Order>(`${base()}/orders/${encodeURIComponent(orderId)}`, ctx),
    }),
    defineTool<{ orderId: string; amountCents: number }, Credit>({
      name: "billing.issue_credit",
      description: "Credits an amount back on an order. Idempotent by key.",
      capability: "execute",
      semantics: "idempotent",
      input: z.object({ orderId: z.string(), amountCents: z.number().int().positive() }),
      impact: ({ orderId, amountCents }) => `credits ${amountCents} cents on ${orderId}`,
      run: (args, ctx) =>
        send<Credit>(`${base()}/payments/refunds`, ctx, {
          method: "POST",
          body: JSON.stringify(args),
          headers: { "idempotency-key": ctx.idempotencyKey },
        }),
      receiptId: (credit) => credit.refundId,
      // The billing provider is the world's payment system: a credit shows up there as a refund.
      ledger: { system: "payments", action: "refund" },
    }),
  ];
}

export const creditAgent = defineAgent({
  slug: "credit-agent",
  version: "1",
  description: "Credits what is left of an order.",
  instructions: "Look the order up, then credit what was not refunded yet.",
  input: z.object({ orderId: z.string() }),
  tools: ["shop.get_order", "billing.issue_credit"],
  gates: { "billing.issue_credit": { when: { path: "amountCents", op: "gt", value: 2000 } } },
  policy: ({ input, state }) => {
    const credit = latestFact(state, "credit");
    if (credit) return { kind: "complete", output: { credited: true, creditId: (credit.value as Credit).refundId } };
    const order = latestFact(state, "order");
    if (!order) {
      const reply = outcomeOf(state, "shop.get_order", -1);
      if (reply?.kind === "tool_error") return { kind: "fail", reason: reply.message };
      return {
        kind: "call",
        tool: "shop.get_order",
        args: { orderId: input.orderId },
        resultKey: "order",
        evidence: [],
      };
    }
    const { amountCents, refundedCents } = order.value as Order;
    const reply = outcomeOf(state, "billing.issue_credit", -1);
    if (reply && isTurnedDown(reply)) return { kind: "complete", output: { credited: false } };
    if (reply?.kind === "tool_error") return { kind: "fail", reason: reply.message };
    if (amountCents - refundedCents <= 0) return { kind: "complete", output: { credited: false } };
    return {
      kind: "call",
      tool: "billing.issue_credit",
      args: { orderId: input.orderId, amountCents: amountCents - refundedCents },
      resultKey: "credit",
      evidence: ["order"],
    };
  },
});

const subject: EvalSubject = {
  agents: [creditAgent],
  tools: ({ sandboxUrl }) => creditTools(sandboxUrl),
};
export default subject;
