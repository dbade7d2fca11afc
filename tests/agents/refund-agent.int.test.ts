import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { refundAgent } from "../../lib/agents";
import type { RunRecord } from "../../lib/runtime";
import { resetFaults } from "../../lib/sandbox/faults";
import { startSandboxServer, type SandboxServer } from "../../lib/sandbox/http-server";
import { seedSandbox } from "../../lib/sandbox/seed";
import { createBuiltInTools } from "../../lib/tools";
import { createTestRuntime, providers, uid } from "../support/runtime";
import { createSandboxOrder } from "../support/sandbox-world";

// refund-agent end to end: the real built-in tools over HTTP against the real sandbox world, on each
// database. Every test makes its own order (random id), so tests can share the database; the ledger
// (GET /ledger?runId=) counts the effects each run applied.

type Entry = {
  system: string;
  action: string;
  runId: string | null;
  operationId: string | null;
  data: Record<string, unknown>;
};

describe.each(providers())("refund-agent [%s]", (_provider, url) => {
  const agent = { ...refundAgent.definition, slug: uid("refund-agent") }; // its own slug: its own permissions
  let t: ReturnType<typeof createTestRuntime>;
  let sandbox: SandboxServer;

  const get = async (path: string) => (await fetch(sandbox.url + path)).json();
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(sandbox.url + path, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify(body),
    });
  const ledger = async (runId: string): Promise<Entry[]> =>
    (await get(`/ledger?runId=${encodeURIComponent(runId)}`)).entries;
  const count = (entries: Entry[], system: string) => entries.filter((e) => e.system === system).length;

  async function start(input: unknown): Promise<RunRecord> {
    const { run } = await t.runtime.startRun({ agent: agent.slug, input, startedBy: "support@test" });
    await t.runtime.createWorker().drain();
    return t.runtime.getRun(run.id);
  }
  async function decide(run: RunRecord, input: Record<string, unknown>) {
    const [packet] = await t.store.findPackets({ runId: run.id, status: ["PENDING"] });
    await t.runtime.decidePacket({ packetId: packet.id, reviewer: "reviewer@test", input });
    await t.runtime.createWorker().drain();
    return t.runtime.getRun(run.id);
  }
  const pending = async (runId: string) => (await t.store.findPackets({ runId, status: ["PENDING"] }))[0];

  beforeAll(async () => {
    t = createTestRuntime(url, {
      agents: [agent],
      tools: createBuiltInTools({ sandboxUrl: () => sandbox.url, timeoutMs: 2000 }),
    });
    sandbox = await startSandboxServer(t.db);
    await seedSandbox(t.db);
    for (const rule of refundAgent.defaultPermissions)
      await t.runtime.permissions.put({ ...rule, agent: agent.slug }, { by: "admin@test" });
  });
  afterEach(async () => {
    await resetFaults(t.db);
  });
  afterAll(async () => {
    await sandbox.close();
    await t.close();
  });

  it("refunds $240.00 once a reviewer approves, then emails the customer: each effect exactly once", async () => {
    const order = await createSandboxOrder(t.db, { amountCents: 24000, cardLast4: "4242" });
    const run = await start({ orderId: order.id, reason: "Arrived broken." });
    expect(run.status).toBe("WAITING_APPROVAL");
    const packet = await pending(run.id);
    expect(packet.tool).toBe("payments.refund");
    expect(packet.queue).toBe("refunds");
    expect(packet.content.impact).toBe("refunds $240.00 to card •4242");
    expect(packet.content.uncertainty).toBe("low");
    expect(packet.content.evidence.map((e) => [e.key, e.kind])).toEqual([
      ["order", "observation"],
      ["history", "observation"],
      ["assessment", "inference"],
    ]);
    expect(packet.content.reasoning).toContain("Arrived broken.");
    expect(await ledger(run.id)).toEqual([]); // nothing happened before the decision

    const done = await decide(run, { decision: "approve" });
    expect(done.status).toBe("COMPLETED");
    expect(done.state.output).toMatchObject({
      refunded: true,
      orderId: order.id,
      amountCents: 24000,
      cardLast4: "4242",
      notified: true,
      refundId: expect.stringMatching(/^re_/),
      messageId: expect.stringMatching(/^msg_/),
    });
    expect(done.state.plan.every((s) => s.status === "done")).toBe(true);
    const kinds = Object.fromEntries(
      done.state.facts.map((f) => [f.key.startsWith("decision:") ? "decision" : f.key, f.kind]),
    );
    expect(kinds).toEqual({
      order: "observation",
      history: "observation",
      assessment: "inference",
      decision: "decision",
      refund: "receipt",
      mail: "receipt",
    });
    expect(done.state.facts.find((f) => f.key === "refund")!.source.receiptId).toMatch(/^re_/);

    const effects = await ledger(run.id);
    expect(effects.map((e) => `${e.system}.${e.action}`)).toEqual(["payments.refund", "mail.send"]);
    expect(effects[0].data).toMatchObject({ orderId: order.id, amountCents: 24000 });
    expect(effects[1].data).toMatchObject({ to: order.customerEmail, subject: `Your refund for order ${order.id}` });
    expect(await get(`/orders/${order.id}`)).toMatchObject({ refundedCents: 24000, status: "refunded" });

    // Nothing left to do: another worker pass applies nothing new.
    expect(await t.runtime.createWorker().drain()).toBe(0);
    expect(await ledger(run.id)).toHaveLength(2);
  });

  it("refunds a small order on its own; lost responses are retried with the key (payments) and looked up (mail), never repeated", async () => {
    const order = await createSandboxOrder(t.db, { amountCents: 1850, cardLast4: "1881" });
    // The next refund and the next email are applied, then their responses are lost.
    expect(
      (
        await fetch(`${sandbox.url}/faults/payments`, {
          method: "PUT",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ timeoutAfterApply: 1, holdMs: 50 }),
        })
      ).ok,
    ).toBe(true);
    expect(
      (
        await fetch(`${sandbox.url}/faults/mail`, {
          method: "PUT",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ timeoutAfterApply: 1, holdMs: 50 }),
        })
      ).ok,
    ).toBe(true);

    const done = await start({ orderId: order.id });
    expect(done.status).toBe("COMPLETED");
    expect(done.state.output).toMatchObject({ refunded: true, amountCents: 1850, notified: true });
    expect(await t.store.findPackets({ runId: done.id })).toEqual([]); // under $100: no approval

    const effects = await ledger(done.id);
    expect(count(effects, "payments")).toBe(1);
    expect(count(effects, "mail")).toBe(1);
    const events = await t.store.listEvents(done.id);
    const refundCalls = events.filter((e) => e.type === "tool.call" && e.data.tool === "payments.refund");
    expect(refundCalls.map((e) => e.data.attempt)).toEqual([1, 2]);
    expect(new Set(refundCalls.map((e) => e.data.idempotencyKey)).size).toBe(1);
    expect(events.find((e) => e.type === "effect.lookup")?.data).toMatchObject({ tool: "mail.send", found: true });
    expect(await get(`/orders/${order.id}`)).toMatchObject({ refundedCents: 1850 });
  });

  it("flags a customer with many refunds as high uncertainty; a rejection ends the run with refunded:false and the reason", async () => {
    const email = `${uid("mallory")}@example.com`;
    for (const amountCents of [6000, 4500, 8900]) {
      const past = await createSandboxOrder(t.db, { customerEmail: email, amountCents });
      expect(
        (await post("/payments/refunds", { orderId: past.id, amountCents }, { "idempotency-key": uid("past") })).status,
      ).toBe(200);
    }
    const order = await createSandboxOrder(t.db, { customerEmail: email, amountCents: 12900, cardLast4: "0005" });
    const run = await start({ orderId: order.id });
    const packet = await pending(run.id);
    expect(packet.content.impact).toBe("refunds $129.00 to card •0005");
    expect(packet.content.uncertainty).toMatch(/^high — 3 earlier refunds/);
    expect(packet.content.reasoning).toContain("3 of Test Customer's other orders were refunded");
    const history = packet.content.evidence.find((e) => e.key === "history")!;
    expect((history.value as { orders: unknown[] }).orders).toHaveLength(4);

    const done = await decide(run, { decision: "reject", reason: "Refund abuse review first." });
    expect(done.status).toBe("COMPLETED");
    expect(done.state.output).toMatchObject({ refunded: false, orderId: order.id });
    expect((done.state.output as { reason: string }).reason).toContain("Refund abuse review first.");
    expect(done.state.plan.find((s) => s.id === "refund")!.status).toBe("failed");
    expect(await ledger(run.id)).toEqual([]);
    expect(await get(`/orders/${order.id}`)).toMatchObject({ refundedCents: 0 });
  });

  it("follows a redirect to store credit: no refund, an email about the credit", async () => {
    const order = await createSandboxOrder(t.db, { amountCents: 24000 });
    const run = await start({ orderId: order.id });
    const done = await decide(run, { decision: "redirect", instruction: "Offer store credit instead of a refund." });
    expect(done.status).toBe("COMPLETED");
    expect(done.state.output).toMatchObject({
      refunded: false,
      storeCredit: { amountCents: 24000, currency: "usd" },
      notified: true,
    });
    expect(done.state.instructions.at(-1)).toBe("Offer store credit instead of a refund.");
    const assessments = done.state.facts.filter((f) => f.key === "assessment");
    expect(assessments.map((f) => (f.value as { action: string }).action)).toEqual(["refund", "store_credit"]);

    const effects = await ledger(run.id);
    expect(effects.map((e) => `${e.system}.${e.action}`)).toEqual(["mail.send"]);
    const { message } = await get(`/mail/sent?operationId=${effects[0].operationId}`);
    expect(message).toMatchObject({ to: order.customerEmail, subject: `Store credit for your order ${order.id}` });
    expect(message.body).toContain("$240.00 in store credit");
    expect(await get(`/orders/${order.id}`)).toMatchObject({ refundedCents: 0 });
  });

  it("follows a redirect to a smaller amount: under the limit, it refunds without asking again", async () => {
    const order = await createSandboxOrder(t.db, { amountCents: 24000 });
    const run = await start({ orderId: order.id });
    const done = await decide(run, { decision: "redirect", instruction: "Refund $50 only; the rest was used." });
    expect(done.status).toBe("COMPLETED");
    expect(done.state.output).toMatchObject({ refunded: true, amountCents: 5000, notified: true });
    expect(await t.store.findPackets({ runId: run.id, status: ["PENDING"] })).toEqual([]);
    const effects = await ledger(run.id);
    expect(effects.map((e) => `${e.system}.${e.action}`)).toEqual(["payments.refund", "mail.send"]);
    expect(effects[0].data).toMatchObject({ amountCents: 5000 });
    expect(await get(`/orders/${order.id}`)).toMatchObject({ refundedCents: 5000, status: "partially_refunded" });
  });

  it("re-reads and re-proposes when the order changed while the packet waited (stale evidence)", async () => {
    const order = await createSandboxOrder(t.db, { amountCents: 24000 });
    const run = await start({ orderId: order.id });
    const first = await pending(run.id);
    // Someone refunds $40.00 of it elsewhere while the reviewer is away.
    expect(
      (
        await post(
          "/payments/refunds",
          { orderId: order.id, amountCents: 4000 },
          { "idempotency-key": uid("elsewhere") },
        )
      ).status,
    ).toBe(200);

    const again = await decide(run, { decision: "approve" });
    expect(again.status).toBe("WAITING_APPROVAL");
    const stale = (await t.store.findPackets({ runId: run.id })).find((p) => p.id === first.id)!;
    expect(stale.status).toBe("STALE");
    expect(stale.content.staleChanges?.map((c) => c.key)).toContain("order");
    const second = await pending(run.id);
    expect(second.content.impact).toBe("refunds $200.00 to card •4242");
    expect(second.content.reasoning).toContain("the remaining $200.00");
    expect(await ledger(run.id)).toEqual([]); // the stale approval was not used

    const done = await decide(run, { decision: "approve" });
    expect(done.status).toBe("COMPLETED");
    expect(done.state.output).toMatchObject({ refunded: true, amountCents: 20000 });
    const effects = await ledger(run.id);
    expect(effects.map((e) => `${e.system}.${e.action}`)).toEqual(["payments.refund", "mail.send"]);
    expect(effects[0].data).toMatchObject({ amountCents: 20000 });
    expect(await get(`/orders/${order.id}`)).toMatchObject({ refundedCents: 24000, status: "refunded" });
  });

  it("completes with an explanation when the payment provider declines (402) an edited, over-sized refund", async () => {
    const order = await createSandboxOrder(t.db, { amountCents: 24000 });
    const run = await start({ orderId: order.id });
    const done = await decide(run, {
      decision: "edit",
      args: { orderId: order.id, amountCents: 30000, cardLast4: "4242", currency: "usd" },
    });
    expect(done.status).toBe("COMPLETED");
    expect(done.state.output).toMatchObject({ refunded: false, declined: true, orderId: order.id });
    expect((done.state.output as { reason: string }).reason).toMatch(
      /declined.*\$300\.00 exceeds the \$240\.00 still refundable/,
    );
    expect(await ledger(run.id)).toEqual([]); // a decline is not an effect
    expect(await get(`/orders/${order.id}`)).toMatchObject({ refundedCents: 0 });
  });

  it("has an example input that names an order of the seeded world", async () => {
    const input = agent.input.parse(refundAgent.exampleInput) as { orderId: string };
    expect(await get(`/orders/${input.orderId}`)).toMatchObject({
      id: input.orderId,
      amountCents: 24000,
      cardLast4: "4242",
    });
  });
});
