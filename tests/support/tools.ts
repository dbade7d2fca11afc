import { z } from "zod";
import { ToolError, type ToolCallContext, type ToolDefinition } from "../../lib/runtime";

// Tools over real HTTP to the test world (tests/support/world.ts), one per effect semantics.

/** Long: the world answers at once unless a test slows it, and a stalled loaded machine must not turn a
 *  call into a time-out (an unknown outcome) the test did not mean. */
const CALL_TIMEOUT_MS = 30_000;

async function http(
  worldUrl: string,
  path: string,
  init: RequestInit & { ctx?: ToolCallContext; timeoutMs?: number } = {},
) {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    ...(init.headers as Record<string, string>),
  };
  if (init.ctx) headers["x-run-id"] = init.ctx.runId;
  let res: Response;
  try {
    res = await fetch(worldUrl + path, {
      ...init,
      headers,
      signal: AbortSignal.timeout(init.timeoutMs ?? CALL_TIMEOUT_MS),
    });
  } catch (error) {
    // The request may or may not have been applied: the classic unknown outcome.
    const name = (error as Error).name;
    throw new ToolError(
      name === "TimeoutError" ? "timeout" : "network",
      `${path}: ${(error as Error).message}`,
      "unknown",
    );
  }
  const payload = await res.json().catch(() => null);
  if (res.status >= 500) throw new ToolError("server", `${path}: HTTP ${res.status}`, "unknown", payload);
  if (res.status >= 400)
    throw new ToolError("rejected", `${path}: HTTP ${res.status} ${JSON.stringify(payload)}`, "not_applied", payload);
  return payload;
}

export function worldTools(worldUrl: string): ToolDefinition[] {
  const getOrder: ToolDefinition<{ orderId: string }> = {
    name: "orders.get",
    description: "Read an order",
    capability: "read",
    semantics: "pure-read",
    input: z.object({ orderId: z.string().min(1) }),
    impact: ({ orderId }) => `reads order ${orderId}`,
    freshnessMs: 60_000,
    run: ({ orderId }, ctx) => http(worldUrl, `/orders/${orderId}`, { ctx }),
  };
  const refund: ToolDefinition<{ orderId: string; amountCents: number }> = {
    name: "payments.refund",
    description: "Refund an order",
    capability: "execute",
    semantics: "idempotent",
    input: z.object({ orderId: z.string().min(1), amountCents: z.number().int().positive() }),
    impact: ({ orderId, amountCents }) => `refunds $${(amountCents / 100).toFixed(2)} on order ${orderId}`,
    run: (args, ctx) =>
      http(worldUrl, "/payments/refund", {
        method: "POST",
        body: JSON.stringify(args),
        headers: { "idempotency-key": ctx.idempotencyKey },
        ctx,
      }),
    receiptId: (r: { refundId: string }) => r.refundId,
  };
  const sendMail: ToolDefinition<{ to: string; subject: string }> = {
    name: "mail.send",
    description: "Send an email",
    capability: "execute",
    semantics: "reconcilable",
    input: z.object({ to: z.string().email(), subject: z.string().min(1) }),
    impact: ({ to, subject }) => `emails ${to}: "${subject}"`,
    run: (args, ctx) =>
      http(worldUrl, "/mail/send", {
        method: "POST",
        body: JSON.stringify({ ...args, operationId: ctx.operationId }),
        ctx,
      }),
    lookup: async (_args, ctx) => (await http(worldUrl, `/mail/sent?operationId=${ctx.operationId}`, { ctx })).message,
    receiptId: (r: { messageId: string }) => r.messageId,
  };
  const migrate: ToolDefinition<{ migration: string }> = {
    name: "deploy.migrate",
    description: "Run a database migration",
    capability: "execute",
    semantics: "unsafe",
    input: z.object({ migration: z.string().min(1) }),
    impact: ({ migration }) => `runs migration ${migration} on production`,
    run: (args, ctx) => http(worldUrl, "/deploys/migrate", { method: "POST", body: JSON.stringify(args), ctx }),
    receiptId: (r: { deployId: string }) => r.deployId,
  };
  return [getOrder, refund, sendMail, migrate];
}
