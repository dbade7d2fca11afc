import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, type Db } from "../lib/db";
import type { AgentDefinition } from "../lib/runtime";
import { refundLoopAgent, scriptedAgent } from "./support/agents";
import { expireLeases } from "./support/leases";
import { startRouteServer } from "./support/route-server";
import { createTestRuntime, expectError, grant, providers, uid } from "./support/runtime";
import { kill, spawnWorker } from "./support/spawn-worker";
import { createPersonWithToken } from "./support/tokens";
import { worldTools } from "./support/tools";
import { until } from "./support/until";
import { startWorld, type World } from "./support/world";

// Per-run budgets: a run that reaches its tool-call, token or dollar budget is parked with a decision packet;
// approve or edit extends it, reject stops it (CANCELLED). The counts are in the run's state: a worker killed
// between steps leaves them as they were.

// The killed worker's lease: long, so that no stall of a loaded machine lapses it before the fault point;
// the test expires it once the worker is dead.
const LEASE_MS = 30_000;

describe.each(providers())("per-run budgets [%s]", (_provider, url) => {
  let world: World;
  let t: ReturnType<typeof createTestRuntime>;
  const agents: AgentDefinition[] = [];

  beforeAll(async () => {
    world = await startWorld();
    t = createTestRuntime(url, { agents, tools: worldTools(world.url) });
  });
  afterAll(async () => {
    await t.close();
    await world.close();
  });

  async function register(agent: AgentDefinition) {
    agents.push(agent);
    t.runtime.context.agents.set(agent.slug, agent);
    await grant(t.runtime, agent);
    return agent;
  }
  const drain = () => t.runtime.createWorker().drain();
  const refundsOf = (runId: string) => world.effects("payments").filter((e) => e.runId === runId);
  const openBudgetPacket = async (runId: string) => {
    const packets = await t.store.findPackets({ runId, status: ["PENDING"] });
    expect(packets).toHaveLength(1);
    expect(packets[0].kind).toBe("BUDGET");
    return packets[0];
  };

  it("parks a looping agent at its tool-call budget; an edit extends it once, it parks again, a rejection stops it", async () => {
    const agent = await register(refundLoopAgent(uid("loop"), { toolCalls: 3 }));
    const { run } = await t.runtime.startRun({
      agent: agent.slug,
      input: { orderId: uid("order") },
      startedBy: "ops@example.com",
    });
    await drain();

    expect((await t.runtime.getRun(run.id)).status).toBe("WAITING_APPROVAL");
    expect(refundsOf(run.id)).toHaveLength(3);
    const first = await openBudgetPacket(run.id);
    expect(first).toMatchObject({
      tool: "run.budget",
      args: { extendBy: { toolCalls: 3 } },
      content: {
        impact: "budget reached: 3 tool calls of 3: continue with more, or stop",
        options: ["approve", "edit", "reject"],
      },
    });
    expect(first.content.why).toContain("its next call (payments.refund) waits");

    // an extension that says nothing, or a negative one, is refused and changes nothing
    const refused = await expectError(
      t.runtime.decidePacket({
        packetId: first.id,
        reviewer: "rita@example.com",
        input: { decision: "edit", args: { extendBy: { toolCalls: -1 } } },
      }),
      "INVALID_INPUT",
    );
    expect(Object.keys(refused.fieldErrors)).toEqual(["extendBy.toolCalls"]);
    await expectError(
      t.runtime.decidePacket({
        packetId: first.id,
        reviewer: "rita@example.com",
        input: { decision: "edit", args: { extendBy: {} } },
      }),
      "INVALID_INPUT",
    );
    // whoever started the run does not extend its budget
    await expectError(
      t.runtime.decidePacket({ packetId: first.id, reviewer: "ops@example.com", input: { decision: "approve" } }),
      "FORBIDDEN",
    );
    expect(await t.store.getPacket(first.id, null)).toMatchObject({ status: "PENDING", version: first.version });

    await t.runtime.decidePacket({
      packetId: first.id,
      reviewer: "rita@example.com",
      input: { decision: "edit", args: { extendBy: { toolCalls: 2 } } },
    });
    await drain();
    const extended = await t.runtime.getRun(run.id);
    expect(extended.status).toBe("WAITING_APPROVAL");
    expect(refundsOf(run.id)).toHaveLength(5);
    expect(extended.state.budget).toEqual({ limits: { toolCalls: 5 }, toolCalls: 5 });
    const second = await openBudgetPacket(run.id);
    expect(second.content.impact).toBe("budget reached: 5 tool calls of 5: continue with more, or stop");

    await t.runtime.decidePacket({
      packetId: second.id,
      reviewer: "rita@example.com",
      input: { decision: "reject", reason: "enough refunds for today" },
    });
    await drain();
    const stopped = await t.runtime.getRun(run.id);
    expect(stopped).toMatchObject({
      status: "CANCELLED",
      error: "stopped at its budget by rita@example.com: enough refunds for today",
    });
    expect(refundsOf(run.id)).toHaveLength(5);
    const events = await t.store.listEvents(run.id);
    expect(events.filter((e) => e.type.startsWith("budget.")).map((e) => [e.type, e.data.packetId])).toEqual([
      ["budget.reached", first.id],
      ["budget.extended", first.id],
      ["budget.reached", second.id],
      ["budget.stopped", second.id],
    ]);
    expect(events.find((e) => e.type === "budget.extended")!.data).toMatchObject({
      by: "rita@example.com",
      extendBy: { toolCalls: 2 },
      limits: { toolCalls: 5 },
    });
    expect(stopped.state.facts.filter((f) => f.kind === "decision").map((f) => f.source.packetId)).toEqual([
      first.id,
      second.id,
    ]);
  });

  it("a run start's budget overrides the agent's, field by field; approve extends by the proposal", async () => {
    const agent = await register(refundLoopAgent(uid("loop"), { toolCalls: 10, usd: 5 }));
    const { run } = await t.runtime.startRun({
      agent: agent.slug,
      input: { orderId: uid("order") },
      budget: { toolCalls: 2 },
    });
    expect(run.state.budget.limits).toEqual({ toolCalls: 2, usd: 5 });
    await drain();
    expect(refundsOf(run.id)).toHaveLength(2);
    const packet = await openBudgetPacket(run.id);
    expect(packet.args).toEqual({ extendBy: { toolCalls: 2 } });
    await t.runtime.decidePacket({ packetId: packet.id, reviewer: "rita@example.com", input: { decision: "approve" } });
    await drain();
    expect(refundsOf(run.id)).toHaveLength(4);
    expect((await t.runtime.getRun(run.id)).state.budget.limits).toEqual({ toolCalls: 4, usd: 5 });

    await expectError(
      t.runtime.startRun({ agent: agent.slug, input: { orderId: "o" }, budget: { toolCalls: 0 } }),
      "INVALID_INPUT",
    );
  });

  it("parks before asking the model past its token budget, and continues from what it used once extended", async () => {
    // 15 tokens a decision: after three (45 ≥ 40) it is not asked a fourth time
    const agent = await register(
      scriptedAgent(
        uid("tokens"),
        ["orders.get"],
        Array.from({ length: 10 }, () => ({ kind: "record" as const, facts: [{ key: "note", value: 1 }] })),
      ),
    );
    agent.budget = { tokens: 40 };
    const { run } = await t.runtime.startRun({ agent: agent.slug, input: {} });
    await drain();
    const parked = await t.runtime.getRun(run.id);
    expect(parked.status).toBe("WAITING_APPROVAL");
    expect(parked.state.usage).toMatchObject({ modelCalls: 3, inputTokens: 30, outputTokens: 15 });
    const packet = await openBudgetPacket(run.id);
    expect(packet.content.impact).toBe("budget reached: 45 tokens of 40: continue with more, or stop");
    await t.runtime.decidePacket({
      packetId: packet.id,
      reviewer: "rita@example.com",
      input: { decision: "edit", args: { extendBy: { tokens: 30 } } },
    });
    await drain();
    const again = await t.runtime.getRun(run.id);
    // 45 used + 30 more = 75: two more decisions (75 tokens) and it parks again
    expect(again.state.budget.limits).toEqual({ tokens: 75 });
    expect(again.state.usage.modelCalls).toBe(5);
    expect(again.status).toBe("WAITING_APPROVAL");
  });

  it("a worker killed between steps keeps the count: the run parks at its budget, not past it", async () => {
    const slug = uid("loop-crash");
    const agent = await register(refundLoopAgent(slug, { toolCalls: 4 }));
    const { run } = await t.runtime.startRun({ agent: agent.slug, input: { orderId: uid("order") } });
    const victim = spawnWorker({
      TETHER_LEASE_MS: String(LEASE_MS),
      DATABASE_URL: url,
      WORLD_URL: world.url,
      TETHER_FAULT_AT: "after-commit",
      TETHER_FAULT_TOOL: "payments.refund",
      TETHER_FAULT_STEP: "1",
      AGENTS: JSON.stringify([{ kind: "refund-loop", slug, budget: { toolCalls: 4 } }]),
    });
    try {
      await victim.waitFor(`FAULT after-commit payments.refund ${run.id}`);
    } finally {
      await kill(victim.child);
    }
    const orphaned = await t.runtime.getRun(run.id);
    expect(orphaned.state.budget.toolCalls).toBe(2); // two calls committed before the kill
    expect(refundsOf(run.id)).toHaveLength(2);
    await expireLeases(t.db, [run.id]); // the dead worker's lease runs out (now, rather than in LEASE_MS)
    await until(
      "the run parks at its budget after the takeover",
      async () => {
        await t.runtime.createWorker({ leaseMs: 5_000 }).drain();
        return (await t.runtime.getRun(run.id)).status === "WAITING_APPROVAL";
      },
      30_000,
    );
    const parked = await t.runtime.getRun(run.id);
    expect(parked.state.budget.toolCalls).toBe(4);
    expect(refundsOf(run.id)).toHaveLength(4);
    expect((await openBudgetPacket(run.id)).content.impact).toBe(
      "budget reached: 4 tool calls of 4: continue with more, or stop",
    );
  });
});

describe.each(providers())("POST /api/runs budget [%s]", (_provider, url) => {
  let server: Awaited<ReturnType<typeof startRouteServer>>;
  let db: Db;
  let operator: string;

  beforeAll(async () => {
    process.env.DATABASE_URL = url; // the route handlers' composition root follows it
    db = createDb(url);
    operator = (await createPersonWithToken(db, { role: "operator", scopes: ["runs:write", "runs:read"] })).token;
    server = await startRouteServer();
  });
  afterAll(async () => {
    await server.close();
    await db.$disconnect();
  });

  const start = async (body: unknown) => {
    const res = await fetch(`${server.url}/api/runs`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${operator}` },
      body: JSON.stringify(body),
    });
    return { status: res.status, json: await res.json() };
  };

  it("takes an optional budget; a malformed one is a 400 naming the field, and no run is written", async () => {
    const key = uid("budget-key");
    for (const budget of [{ toolCalls: 0 }, { toolCalls: 2.5 }, { usd: -1 }, { steps: 3 }]) {
      const refused = await start({
        agent: "deploy-agent",
        input: { migration: "0001_budget" },
        idempotencyKey: key,
        budget,
      });
      expect(refused.status, JSON.stringify(budget)).toBe(400);
      expect(JSON.stringify(refused.json.error), JSON.stringify(budget)).toContain("budget");
    }
    expect(await db.run.count({ where: { idempotencyKey: key } })).toBe(0);

    const started = await start({
      agent: "deploy-agent",
      input: { migration: "0001_budget" },
      idempotencyKey: key,
      budget: { toolCalls: 7, usd: 0.5 },
    });
    expect(started.status).toBe(201);
    const row = await db.run.findUniqueOrThrow({ where: { id: started.json.id } });
    expect(JSON.parse(row.state).budget).toEqual({ limits: { toolCalls: 7, usd: 0.5 }, toolCalls: 0 });
  });
});
