import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findTool, type AgentDefinition } from "../lib/runtime";
import { assignInboxPacket } from "../lib/inbox/assign-packet";
import { decidePacketsTogether } from "../lib/inbox/decide-together";
import { parseInboxFilters } from "../lib/inbox/queue";
import { findInboxPage } from "../lib/queries/inbox-page";
import { findDecisionHistory, type HistoryEntry } from "../lib/queries/decision-history";
import { countPendingPackets, findDeciders, getPacketView, isDecider, type InboxDeps } from "../lib/queries/packets";
import { deployAgent, refundAgent } from "./support/agents";
import { createTestRuntime, grant, manualClock, providers, uid, expectError } from "./support/runtime";
import { worldTools } from "./support/tools";
import { startWorld, type World } from "./support/world";

// The inbox's read models and its domain functions (assignment, bulk decisions) against real
// databases, with the engine producing real packets; plus the engine's distinct expiry/staleness codes.

const OVER_LIMIT = { path: "amountCents", op: "gt", value: 10_000, effect: "require_approval" } as const;

describe.each(providers())("inbox queries and decisions [%s]", (_provider, url) => {
  let world: World;
  const clock = manualClock(new Date());
  let t: ReturnType<typeof createTestRuntime>;
  let deps: InboxDeps;
  const agents: AgentDefinition[] = [];

  beforeAll(async () => {
    world = await startWorld();
    t = createTestRuntime(url, { clock, agents, tools: worldTools(world.url) });
    deps = { store: t.store, db: t.db, findTool: (name) => findTool(t.runtime.context, name) };
  });
  afterAll(async () => {
    await t.close();
    await world.close();
  });

  const drain = () => t.runtime.createWorker().drain();
  async function waitingRefund(opts: { amountCents?: number; rule?: Record<string, unknown> } = {}) {
    const agent = refundAgent(uid("inbox-refund"));
    t.runtime.context.agents.set(agent.slug, agent);
    await grant(t.runtime, agent, { "payments.refund": { conditions: [OVER_LIMIT], queue: "refunds", ...opts.rule } });
    const orderId = uid("order");
    world.orders.set(orderId, { id: orderId, amountCents: opts.amountCents ?? 24_000, status: "paid" });
    const { run } = await t.runtime.startRun({ agent: agent.slug, input: { orderId, email: "bob@example.com" } });
    await drain();
    const [packet] = await t.store.findPackets({ runId: run.id, status: ["PENDING"] });
    return { agent, runId: run.id, orderId, packet };
  }
  /** The inbox page of one agent's packets (other tests' packets share the database). */
  const inboxOf = async (agent: string) =>
    (
      await findInboxPage(
        t.db,
        { workspaceId: null, filters: parseInboxFilters({ agent }), me: "me@example.com" },
        deps.findTool,
      )
    ).items;
  async function createUser(role: string, disabled = false) {
    const email = `${uid(role)}@example.com`;
    await t.db.user.create({
      data: { id: `usr_${randomUUID()}`, email, role, disabledAt: disabled ? new Date() : null },
    });
    return email;
  }

  it("lists a pending packet as an inbox item with its agent, tool traits, impact level and queue", async () => {
    const { agent, packet } = await waitingRefund();
    const item = (await inboxOf(agent.slug)).find((i) => i.id === packet.id);
    expect(item).toMatchObject({
      agent: agent.slug,
      tool: "payments.refund",
      capability: "execute",
      semantics: "idempotent",
      impactLevel: "high",
      queue: "refunds",
      assignee: null,
      digest: packet.digest,
      impact: "refunds $240.00 on order " + (packet.args as { orderId: string }).orderId,
    });
    expect(typeof item!.createdAt).toBe("string");
    const view = await getPacketView(packet.id, deps);
    expect(view).toMatchObject({
      impactLevel: "high",
      run: { status: "WAITING_APPROVAL", agent: agent.slug },
      argsSchema: { type: "object", required: ["orderId", "amountCents"] },
    });
    expect(await getPacketView("pkt_missing", deps)).toBeNull();
  });

  it("counts pending packets and those assigned to a person; assigns only to people who may decide", async () => {
    const { agent, packet } = await waitingRefund();
    const reviewer = await createUser("reviewer");
    const disabled = await createUser("reviewer", true);
    const stranger = `${uid("nobody")}@example.com`;
    expect(await isDecider(reviewer, deps)).toBe(true);
    expect(await isDecider(disabled, deps)).toBe(false);
    expect((await findDeciders(deps)).map((d) => d.email)).toContain(reviewer);
    expect((await findDeciders(deps)).map((d) => d.email)).not.toContain(disabled);

    const assign = (assignee: string | null) =>
      assignInboxPacket(
        { isDecider: (e) => isDecider(e, deps), assignPacket: (o) => t.runtime.assignPacket(o) },
        { packetId: packet.id, assignee, by: "lead@example.com" },
      );
    const before = await countPendingPackets(reviewer, deps);
    expect(before.mine).toBe(0);
    expect(before.pending).toBeGreaterThanOrEqual(1);
    const refused = await expectError(assign(stranger), "INVALID_INPUT");
    expect(refused.fieldErrors).toHaveProperty("assignee");
    await expectError(assign(disabled), "INVALID_INPUT");
    expect(await assign(reviewer)).toMatchObject({ assignee: reviewer });
    expect(await countPendingPackets(reviewer, deps)).toEqual({ pending: before.pending, mine: 1 });
    expect((await inboxOf(agent.slug)).find((i) => i.id === packet.id)?.assignee).toBe(reviewer);
    expect(await assign(null)).toMatchObject({ assignee: null });
    const events = await t.store.listEvents(packet.runId);
    expect(events.filter((e) => e.type === "gate.assigned").map((e) => e.data.assignee)).toEqual([reviewer, null]);
  });

  it("bulk approve: one runtime decision per packet, each bound to its digest; a lost race and a changed action are reported per packet", async () => {
    const a = await waitingRefund();
    const b = await waitingRefund();
    const c = await waitingRefund();
    const d = await waitingRefund();
    await t.runtime.decidePacket({
      packetId: b.packet.id,
      reviewer: "other@example.com",
      input: { decision: "reject", reason: "no" },
    });
    const bulk = (packets: Array<{ packetId: string; digest: string }>) =>
      decidePacketsTogether(
        { getPacket: (id) => t.store.getPacket(id, null), decidePacket: t.runtime.decidePacket },
        { input: { decision: "approve", packets }, reviewer: "rita@example.com" },
      );
    const results = await bulk([
      { packetId: a.packet.id, digest: a.packet.digest },
      { packetId: b.packet.id, digest: b.packet.digest },
      { packetId: c.packet.id, digest: "not-what-was-proposed" },
      { packetId: d.packet.id, digest: d.packet.digest },
    ]);
    expect(results).toEqual([
      { packetId: a.packet.id, ok: true, status: "APPROVED", runId: a.runId },
      {
        packetId: b.packet.id,
        ok: false,
        code: "PACKET_ALREADY_DECIDED",
        message: expect.stringContaining("rejected"),
      },
      { packetId: c.packet.id, ok: false, code: "APPROVAL_MISMATCH", message: expect.any(String) },
      { packetId: d.packet.id, ok: true, status: "APPROVED", runId: d.runId },
    ]);
    expect((await t.store.getPacket(c.packet.id, null))!.status).toBe("PENDING");
    await drain();
    expect((await t.runtime.getRun(a.runId)).status).toBe("COMPLETED");
    expect(world.effects("payments").filter((e) => e.runId === a.runId || e.runId === d.runId)).toHaveLength(2);
  });

  it("bulk decisions refuse packets of different tools", async () => {
    const refund = await waitingRefund();
    const agent = deployAgent(uid("inbox-deploy"));
    t.runtime.context.agents.set(agent.slug, agent);
    await grant(t.runtime, agent, { "deploy.migrate": { effect: "require_approval" } });
    const { run } = await t.runtime.startRun({ agent: agent.slug, input: { migration: "0042_x" } });
    await drain();
    const [deploy] = await t.store.findPackets({ runId: run.id, status: ["PENDING"] });
    await expectError(
      decidePacketsTogether(
        { getPacket: (id) => t.store.getPacket(id, null), decidePacket: t.runtime.decidePacket },
        {
          input: {
            decision: "reject",
            reason: "x",
            packets: [
              { packetId: refund.packet.id, digest: refund.packet.digest },
              { packetId: deploy.id, digest: deploy.digest },
            ],
          },
          reviewer: "rita@example.com",
        },
      ),
      "INVALID_INPUT",
    );
    expect((await t.store.getPacket(deploy.id, null))!.status).toBe("PENDING");
  });

  it("history: who decided, how long the packet waited, and what the run did next", async () => {
    const { packet } = await waitingRefund();
    clock.advance(90_000);
    await t.runtime.decidePacket({
      packetId: packet.id,
      reviewer: "rita@example.com",
      input: { decision: "reject", reason: "duplicate request" },
    });
    await drain();
    // Other test files decide packets in the same database at the same time: find ours by paging the
    // reviewer's history (tests/decision-history.int.test.ts checks paging and filters on data of its own).
    let entry: HistoryEntry | undefined;
    let cursor: string | undefined;
    for (let pages = 0; !entry && pages < 20; pages++) {
      const page = await findDecisionHistory(t.db, { reviewer: "rita@example.com", cursor }, 50);
      entry = page.entries.find((e) => e.packet.id === packet.id);
      if (!page.olderCursor) break;
      cursor = page.olderCursor;
    }
    expect(entry).toMatchObject({
      packet: {
        id: packet.id,
        status: "REJECTED",
        decidedBy: "rita@example.com",
        decision: { reason: "duplicate request" },
      },
      waitedMs: 90_000,
      run: { status: "COMPLETED" },
    });
    expect(entry!.next.map((e) => e.type)).toContain("run.status");
    expect(entry!.next.map((e) => e.type)).not.toContain("gate.decided");
  });

  it("the runtime refuses a packet past its deadline with PACKET_EXPIRED, before and after the worker expires it", async () => {
    const { packet } = await waitingRefund({ rule: { ttlSeconds: 60, onExpire: "reject" } });
    clock.advance(61_000);
    const early = await expectError(
      t.runtime.decidePacket({ packetId: packet.id, reviewer: "rita@example.com", input: { decision: "approve" } }),
      "PACKET_EXPIRED",
    );
    expect(early.userMessage).toMatch(/expired/);
    expect((await t.store.getPacket(packet.id, null))!.status).toBe("PENDING");
    await drain();
    expect((await t.store.getPacket(packet.id, null))!.status).toBe("EXPIRED");
    await expectError(
      t.runtime.decidePacket({
        packetId: packet.id,
        reviewer: "rita@example.com",
        input: { decision: "reject", reason: "late" },
      }),
      "PACKET_EXPIRED",
    );
  });

  it("a packet that went stale answers PACKET_STALE, naming what changed", async () => {
    const { packet, orderId } = await waitingRefund();
    await t.runtime.decidePacket({ packetId: packet.id, reviewer: "rita@example.com", input: { decision: "approve" } });
    world.orders.set(orderId, { id: orderId, amountCents: 18_000, status: "partially_refunded" });
    await drain();
    expect((await t.store.getPacket(packet.id, null))!.status).toBe("STALE");
    const error = await expectError(
      t.runtime.decidePacket({ packetId: packet.id, reviewer: "tom@example.com", input: { decision: "approve" } }),
      "PACKET_STALE",
    );
    expect(error.userMessage).toMatch(/order/);
  });
});
