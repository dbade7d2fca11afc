import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AgentDefinition } from "../lib/runtime";
import { refundAgent } from "./support/agents";
import { createTestRuntime, grant, manualClock, providers, uid, expectError } from "./support/runtime";
import { worldTools } from "./support/tools";
import { startWorld, type World } from "./support/world";

// Human gates: decision packets, the four decisions, exactly one winner, no self-approval, four eyes,
// explicit expiry, approvals bound to the exact action and re-checked before acting.

const OVER_LIMIT = { path: "amountCents", op: "gt", value: 10_000, effect: "require_approval" } as const;

describe.each(providers())("decision packets [%s]", (_provider, url) => {
  let world: World;
  const clock = manualClock();
  let t: ReturnType<typeof createTestRuntime>;
  const agents: AgentDefinition[] = [];

  beforeAll(async () => {
    world = await startWorld();
    t = createTestRuntime(url, { clock, agents, tools: worldTools(world.url) });
  });
  afterAll(async () => {
    await t.close();
    await world.close();
  });

  /** A fresh refund agent whose refunds over $100 need approval, and a run of it waiting on its packet. */
  async function waitingRefund(
    opts: { amountCents?: number; refundRule?: Record<string, unknown>; startedBy?: string } = {},
  ) {
    const agent = refundAgent(uid("gate-refund"));
    agents.push(agent);
    t.runtime.context.agents.set(agent.slug, agent);
    await grant(t.runtime, agent, { "payments.refund": { conditions: [OVER_LIMIT], ...opts.refundRule } });
    const orderId = uid("order");
    world.orders.set(orderId, { id: orderId, amountCents: opts.amountCents ?? 24_000, status: "paid" });
    const { run } = await t.runtime.startRun({
      agent: agent.slug,
      input: { orderId, email: "bob@example.com" },
      startedBy: opts.startedBy,
    });
    await t.runtime.createWorker().drain();
    const [packet] = await t.store.findPackets({ runId: run.id, status: ["PENDING"] });
    return { agent, runId: run.id, orderId, packet };
  }
  const refundsOf = (runId: string) => world.effects("payments").filter((e) => e.runId === runId);
  const drain = () => t.runtime.createWorker().drain();

  it("pauses a refund over the limit with a packet: impact, evidence with provenance and age, digest", async () => {
    const { runId, packet } = await waitingRefund();
    expect((await t.runtime.getRun(runId)).status).toBe("WAITING_APPROVAL");
    expect(packet).toMatchObject({
      kind: "APPROVAL",
      tool: "payments.refund",
      args: { amountCents: 24_000 },
      requiredApprovals: 1,
      digest: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(packet.content.impact).toMatch(/refunds \$240\.00 on order/);
    expect(packet.content.evidence).toEqual([
      expect.objectContaining({
        key: "order",
        kind: "observation",
        ageMs: expect.any(Number),
        source: expect.objectContaining({ tool: "orders.get" }),
      }),
    ]);
    expect(packet.content.options).toEqual(["approve", "edit", "reject", "redirect"]);
    expect(refundsOf(runId)).toHaveLength(0);
  });

  it("approve: the exact proposed action runs once and the approval is used", async () => {
    const { runId, packet } = await waitingRefund();
    await t.runtime.decidePacket({ packetId: packet.id, reviewer: "rita@example.com", input: { decision: "approve" } });
    await drain();
    const run = await t.runtime.getRun(runId);
    expect(run.status).toBe("COMPLETED");
    expect(refundsOf(runId)).toEqual([
      expect.objectContaining({ data: expect.objectContaining({ amountCents: 24_000 }) }),
    ]);
    const used = await t.store.getPacket(packet.id, null);
    expect(used!.usedAt).not.toBeNull();
    expect(run.state.facts.find((f) => f.kind === "decision")).toMatchObject({
      source: { by: "rita@example.com", packetId: packet.id },
    });
    const events = await t.store.listEvents(runId);
    expect(events.find((e) => e.type === "gate.decided")!.data).toMatchObject({
      by: "rita@example.com",
      decision: "approve",
      waitedMs: expect.any(Number),
    });
  });

  it("edit: invalid arguments are refused and change nothing; valid ones run instead of the proposal", async () => {
    const { runId, packet } = await waitingRefund();
    const error = await expectError(
      t.runtime.decidePacket({
        packetId: packet.id,
        reviewer: "rita@example.com",
        input: { decision: "edit", args: { orderId: (packet.args as { orderId: string }).orderId, amountCents: -5 } },
      }),
      "INVALID_INPUT",
    );
    expect(error.fieldErrors).toHaveProperty("amountCents");
    expect(await t.store.getPacket(packet.id, null)).toMatchObject({ status: "PENDING", version: packet.version });

    await t.runtime.decidePacket({
      packetId: packet.id,
      reviewer: "rita@example.com",
      input: { decision: "edit", args: { orderId: (packet.args as { orderId: string }).orderId, amountCents: 12_000 } },
    });
    await drain();
    expect((await t.runtime.getRun(runId)).status).toBe("COMPLETED");
    expect(refundsOf(runId).map((e) => (e.data as { amountCents: number }).amountCents)).toEqual([12_000]);
  });

  it("reject: the reason reaches the agent, which replans; nothing is refunded", async () => {
    const { runId, packet } = await waitingRefund();
    await expectError(
      t.runtime.decidePacket({
        packetId: packet.id,
        reviewer: "rita@example.com",
        input: { decision: "reject", reason: "  " },
      }),
      "INVALID_INPUT",
    );
    await t.runtime.decidePacket({
      packetId: packet.id,
      reviewer: "rita@example.com",
      input: { decision: "reject", reason: "customer already got store credit" },
    });
    await drain();
    const run = await t.runtime.getRun(runId);
    expect(run.status).toBe("COMPLETED");
    expect(run.state.output).toMatchObject({
      refunded: false,
      why: expect.stringContaining("customer already got store credit"),
    });
    expect(refundsOf(runId)).toHaveLength(0);
  });

  it("redirect: the instruction joins the agent's instructions and the run continues from it", async () => {
    const { runId, packet } = await waitingRefund();
    await t.runtime.decidePacket({
      packetId: packet.id,
      reviewer: "rita@example.com",
      input: { decision: "redirect", instruction: "Offer store credit instead." },
    });
    await drain();
    const run = await t.runtime.getRun(runId);
    expect(run.state.instructions.at(-1)).toBe("Offer store credit instead.");
    expect(run.state.observations.some((o) => o.kind === "redirected")).toBe(true);
  });

  it("exactly one of two concurrent decisions wins; a decided packet cannot be decided again", async () => {
    const { runId, packet } = await waitingRefund();
    const results = await Promise.allSettled([
      t.runtime.decidePacket({ packetId: packet.id, reviewer: "rita@example.com", input: { decision: "approve" } }),
      t.runtime.decidePacket({
        packetId: packet.id,
        reviewer: "sam@example.com",
        input: { decision: "reject", reason: "no" },
      }),
    ]);
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    const loser = results.find((r) => r.status === "rejected") as PromiseRejectedResult;
    expect(["PACKET_ALREADY_DECIDED", "CONFLICT"]).toContain(loser.reason.code);
    await expectError(
      t.runtime.decidePacket({ packetId: packet.id, reviewer: "tom@example.com", input: { decision: "approve" } }),
      "PACKET_ALREADY_DECIDED",
    );
    const events = await t.store.listEvents(runId);
    expect(events.filter((e) => e.type === "gate.decided")).toHaveLength(1);
  });

  it("the requester of an action cannot approve it", async () => {
    const { packet } = await waitingRefund({ startedBy: "ann@example.com" });
    await expectError(
      t.runtime.decidePacket({ packetId: packet.id, reviewer: "ann@example.com", input: { decision: "approve" } }),
      "FORBIDDEN",
    );
    await expectError(
      t.runtime.decidePacket({ packetId: packet.id, reviewer: packet.requestedBy, input: { decision: "approve" } }),
      "FORBIDDEN",
    );
    expect((await t.store.getPacket(packet.id, null))!.status).toBe("PENDING");
  });

  it("four eyes: two distinct approvers are needed; the same one twice is refused", async () => {
    const { runId, packet } = await waitingRefund({ refundRule: { approvals: 2 } });
    expect(packet.requiredApprovals).toBe(2);
    const first = await t.runtime.decidePacket({
      packetId: packet.id,
      reviewer: "rita@example.com",
      input: { decision: "approve" },
    });
    expect(first).toMatchObject({ status: "PENDING", approvers: ["rita@example.com"] });
    await drain();
    expect(refundsOf(runId)).toHaveLength(0);
    await expectError(
      t.runtime.decidePacket({ packetId: packet.id, reviewer: "rita@example.com", input: { decision: "approve" } }),
      "CONFLICT",
    );
    await t.runtime.decidePacket({ packetId: packet.id, reviewer: "sam@example.com", input: { decision: "approve" } });
    await drain();
    expect((await t.runtime.getRun(runId)).status).toBe("COMPLETED");
    expect(refundsOf(runId)).toHaveLength(1);
  });

  it("expiry is explicit: a policy that rejects on timeout rejects with reason 'expired', never auto-approves", async () => {
    const { runId, packet } = await waitingRefund({ refundRule: { ttlSeconds: 3600, onExpire: "reject" } });
    clock.advance(30 * 60_000);
    await drain();
    expect((await t.runtime.getRun(runId)).status).toBe("WAITING_APPROVAL"); // not yet
    clock.advance(31 * 60_000);
    await drain();
    expect(await t.store.getPacket(packet.id, null)).toMatchObject({
      status: "EXPIRED",
      decision: { decision: "reject", reason: "expired" },
    });
    const run = await t.runtime.getRun(runId);
    expect(run.status).toBe("COMPLETED");
    expect(run.state.output).toMatchObject({ refunded: false });
    expect(refundsOf(runId)).toHaveLength(0);
  });

  it("expiry can escalate to another queue with a fresh deadline", async () => {
    const { runId, packet } = await waitingRefund({
      refundRule: { ttlSeconds: 60, onExpire: "escalate:finance-leads", queue: "finance" },
    });
    expect(packet.queue).toBe("finance");
    clock.advance(61_000);
    await drain();
    const escalated = await t.store.getPacket(packet.id, null);
    expect(escalated).toMatchObject({
      status: "PENDING",
      queue: "finance-leads",
      onExpire: "reject",
      content: { escalatedFrom: "finance" },
    });
    expect((await t.runtime.getRun(runId)).status).toBe("WAITING_APPROVAL");
    clock.advance(61_000);
    await drain();
    expect((await t.store.getPacket(packet.id, null))!.status).toBe("EXPIRED");
  });

  it("packets can be assigned to a queue or a person", async () => {
    const { packet } = await waitingRefund();
    const assigned = await t.runtime.assignPacket({
      packetId: packet.id,
      by: "lead@example.com",
      queue: "vip",
      assignee: "rita@example.com",
    });
    expect(assigned).toMatchObject({ queue: "vip", assignee: "rita@example.com" });
    expect(await t.store.findPackets({ assignee: "rita@example.com", status: ["PENDING"] })).toEqual([
      expect.objectContaining({ id: packet.id }),
    ]);
  });

  it("a permission revoked while the run waited: the approved action is not executed and the run says why", async () => {
    const { agent, runId, packet } = await waitingRefund();
    await t.runtime.decidePacket({ packetId: packet.id, reviewer: "rita@example.com", input: { decision: "approve" } });
    await t.runtime.permissions.put(
      { agent: agent.slug, tool: "payments.refund", effect: "deny" },
      { by: "admin@example.com" },
    );
    await drain();
    const run = await t.runtime.getRun(runId);
    expect(refundsOf(runId)).toHaveLength(0);
    expect(run.state.output).toMatchObject({ refunded: false, why: expect.stringContaining("permission was revoked") });
    const events = await t.store.listEvents(runId);
    expect(events.find((e) => e.type === "gate.refused")!.data.why).toMatch(/permission was revoked/);
    const history = await t.runtime.permissions.history();
    expect(
      history.find(
        (h) =>
          (h.after as { effect?: string })?.effect === "deny" && (h.before as { effect?: string })?.effect === "allow",
      ),
    ).toBeTruthy();
  });

  it("evidence changed while waiting: the approval goes stale, is not executed, and the agent asks again", async () => {
    const { runId, orderId, packet } = await waitingRefund();
    await t.runtime.decidePacket({ packetId: packet.id, reviewer: "rita@example.com", input: { decision: "approve" } });
    world.orders.set(orderId, { id: orderId, amountCents: 18_000, status: "partially_refunded" });
    await drain();
    const stale = await t.store.getPacket(packet.id, null);
    expect(stale!.status).toBe("STALE");
    expect(stale!.content.staleChanges).toEqual([
      expect.objectContaining({
        key: "order",
        before: expect.objectContaining({ amountCents: 24_000 }),
        after: expect.objectContaining({ amountCents: 18_000 }),
      }),
    ]);
    expect(refundsOf(runId)).toHaveLength(0);
    const [fresh] = await t.store.findPackets({ runId, status: ["PENDING"] });
    expect(fresh.args).toMatchObject({ amountCents: 18_000 });
  });

  it("a read that fails once while the evidence is re-checked is read again: the approval is used, not thrown away as stale", async () => {
    const { runId, packet } = await waitingRefund();
    await t.runtime.decidePacket({ packetId: packet.id, reviewer: "rita@example.com", input: { decision: "approve" } });
    world.faults.failReads = 1;
    try {
      await drain();
    } finally {
      world.faults.failReads = 0;
    }
    expect((await t.store.getPacket(packet.id, null))!.status).toBe("APPROVED");
    expect(refundsOf(runId)).toHaveLength(1);
    const rechecks = (await t.store.listEvents(runId)).filter((e) => e.type === "evidence.rechecked");
    expect(rechecks.map((e) => [e.data.attempt, e.data.ok])).toEqual([
      [1, false],
      [2, true],
    ]);
    expect(rechecks[0].data.error).toMatch(/HTTP 503/);
  });

  it("evidence that cannot be read at all is not trusted: the approval goes stale", async () => {
    const { runId, packet } = await waitingRefund();
    await t.runtime.decidePacket({ packetId: packet.id, reviewer: "rita@example.com", input: { decision: "approve" } });
    world.faults.failReads = 1_000; // down for longer than every attempt
    try {
      await t.runtime.createWorker().runOnce({ runId }); // the gate step alone
    } finally {
      world.faults.failReads = 0;
    }
    const stale = await t.store.getPacket(packet.id, null);
    expect(stale!.status).toBe("STALE");
    expect(stale!.content.staleChanges).toEqual([
      expect.objectContaining({ key: "order", after: { unavailable: expect.stringMatching(/HTTP 503/) } }),
    ]);
    expect(refundsOf(runId)).toHaveLength(0);
  });

  it("an approval is bound to the exact action: a changed action is refused", async () => {
    const { runId, packet } = await waitingRefund();
    await t.runtime.decidePacket({ packetId: packet.id, reviewer: "rita@example.com", input: { decision: "approve" } });
    // Tamper with the stored action after approval (as a bug or an attacker could).
    const row = await t.db.run.findUniqueOrThrow({ where: { id: runId } });
    const state = JSON.parse(row.state);
    state.pending.action.args.amountCents = 99_999;
    await t.db.run.update({ where: { id: runId }, data: { state: JSON.stringify(state) } });
    await drain();
    expect(refundsOf(runId)).toHaveLength(0);
    const events = await t.store.listEvents(runId);
    expect(events.find((e) => e.type === "gate.mismatch")).toBeTruthy();
  });

  it("a decision on a packet that does not exist, or with a malformed body, changes nothing", async () => {
    await expectError(
      t.runtime.decidePacket({ packetId: "pkt_nope", reviewer: "rita@example.com", input: { decision: "approve" } }),
      "NOT_FOUND",
    );
    const { packet } = await waitingRefund();
    await expectError(
      t.runtime.decidePacket({ packetId: packet.id, reviewer: "rita@example.com", input: { decision: "yolo" } }),
      "INVALID_INPUT",
    );
    expect((await t.store.getPacket(packet.id, null))!.version).toBe(packet.version);
  });
});
