import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { refundAgent as builtInRefundAgent } from "../lib/agents";
import type { AgentDefinition, Policy } from "../lib/runtime";
import { startSandboxServer, type SandboxServer } from "../lib/sandbox/http-server";
import { seedSandbox } from "../lib/sandbox/seed";
import { createBuiltInTools } from "../lib/tools";
import { refundAgent, scriptedAgent } from "./support/agents";
import { createTestRuntime, grant, manualClock, providers, uid } from "./support/runtime";
import { createSandboxOrder } from "./support/sandbox-world";
import { worldTools } from "./support/tools";
import { startWorld, type World } from "./support/world";

// Authority the engine enforces, not only shows (docs/security.md): a rule grants capabilities, its conditions
// bind arguments to the run's input, and a material call resting only on an inference or an expired
// observation is gated by rule. Real agents, real tools over HTTP, on every database.

const SAME_ORDER = { path: "orderId", op: "neq", value: { $input: "orderId" }, effect: "deny" } as const;
const SAME_CUSTOMER = { path: "to", op: "neq", value: { $input: "email" }, effect: "deny" } as const;
const OVER_LIMIT = { path: "amountCents", op: "gt", value: 10_000, effect: "require_approval" } as const;

describe.each(providers())("authority the engine enforces [%s]", (_provider, url) => {
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

  const drain = () => t.runtime.createWorker().drain();
  const effectsOf = (system: string, runId: string) => world.effects(system).filter((e) => e.runId === runId);
  const eventsOf = async (runId: string, type: string) =>
    (await t.store.listEvents(runId)).filter((e) => e.type === type);

  function register(agent: AgentDefinition) {
    agents.push(agent);
    t.runtime.context.agents.set(agent.slug, agent);
    return agent;
  }
  function newOrder(amountCents = 2_400) {
    const orderId = uid("order");
    world.orders.set(orderId, { id: orderId, amountCents, status: "paid" });
    return orderId;
  }
  async function run(agent: AgentDefinition, input: unknown) {
    const { run } = await t.runtime.startRun({ agent: agent.slug, input });
    await drain();
    return t.runtime.getRun(run.id);
  }

  it("a read-only grant stops an execute call: nothing is refunded and the agent is told why", async () => {
    const agent = register(refundAgent(uid("read-only")));
    await grant(t.runtime, agent, { "payments.refund": { capabilities: ["read"] } });
    const done = await run(agent, { orderId: newOrder(), email: "bob@example.com" });

    expect(done.status).toBe("COMPLETED");
    expect(done.state.output).toMatchObject({
      refunded: false,
      why: expect.stringMatching(/Permission denied: .*only read with payments\.refund, not execute/),
    });
    expect(effectsOf("payments", done.id)).toHaveLength(0);
    const [checked] = (await eventsOf(done.id, "permission.checked")).filter((e) => e.data.tool === "payments.refund");
    expect(checked.data).toMatchObject({ capability: "execute", effect: "deny" });
  });

  it("arguments bound to the run's input: its own order and customer pass; another order id is denied with the reason", async () => {
    const bound = { "payments.refund": { conditions: [SAME_ORDER] }, "mail.send": { conditions: [SAME_CUSTOMER] } };
    const honest = register(refundAgent(uid("bound")));
    await grant(t.runtime, honest, bound);
    const ok = await run(honest, { orderId: newOrder(), email: "bob@example.com" });
    expect(ok.status).toBe("COMPLETED");
    expect(effectsOf("payments", ok.id)).toHaveLength(1);
    expect(effectsOf("mail", ok.id)).toHaveLength(1);

    // An agent that tries another order (a prompt injection, a confused model): the engine refuses it.
    const elsewhere = newOrder();
    const stray = register(
      scriptedAgent(
        uid("stray"),
        ["payments.refund"],
        [
          {
            kind: "call",
            tool: "payments.refund",
            args: { orderId: elsewhere, amountCents: 2_400 },
            resultKey: "refund",
            evidence: [],
          },
        ],
      ),
    );
    await grant(t.runtime, stray, bound);
    const denied = await run(stray, { orderId: newOrder() });
    expect(effectsOf("payments", denied.id)).toHaveLength(0);
    const [check] = await eventsOf(denied.id, "permission.checked");
    expect(check.data).toMatchObject({
      effect: "deny",
      reason: expect.stringContaining(`orderId neq the run's input orderId ("${elsewhere}" vs`),
    });
    expect(denied.state.observations.find((o) => o.kind === "denied")?.message).toContain("the run's input orderId");
  });

  it("a refund resting only on an inference is gated, and the packet tells the reviewer why", async () => {
    const agent = register(
      scriptedAgent(
        uid("guess"),
        ["payments.refund"],
        [
          { kind: "record", facts: [{ key: "assessment", value: { refund: true } }] },
          ({ state }) => ({
            kind: "call",
            tool: "payments.refund",
            args: { orderId: (state.input as { orderId: string }).orderId, amountCents: 2_400 },
            resultKey: "refund",
            evidence: ["assessment"],
          }),
        ],
      ),
    );
    await grant(t.runtime, agent, { "payments.refund": { freshEvidence: true } });
    const waiting = await run(agent, { orderId: newOrder() });

    expect(waiting.status).toBe("WAITING_APPROVAL");
    expect(effectsOf("payments", waiting.id)).toHaveLength(0);
    const [packet] = await t.store.findPackets({ runId: waiting.id, status: ["PENDING"] });
    expect(packet.content.why).toMatch(
      /rests only on weak evidence — "assessment" \(an inference of the model\): a person confirms it/,
    );
    expect(packet.content.evidence).toEqual([expect.objectContaining({ key: "assessment", kind: "inference" })]);
  });

  it("a refund resting on an observation that expired is gated; once approved, it runs", async () => {
    const agent = register(
      scriptedAgent(
        uid("slow"),
        ["orders.get", "payments.refund"],
        [
          ({ state }) => ({
            kind: "call",
            tool: "orders.get",
            args: { orderId: (state.input as { orderId: string }).orderId },
            resultKey: "order",
            evidence: [],
          }),
          { kind: "sleep", durationMs: 120_000 }, // orders.get's reads stay fresh for a minute
          ({ state }) => ({
            kind: "call",
            tool: "payments.refund",
            args: { orderId: (state.input as { orderId: string }).orderId, amountCents: 2_400 },
            resultKey: "refund",
            evidence: ["order"],
          }),
        ],
      ),
    );
    await grant(t.runtime, agent, { "payments.refund": { freshEvidence: true } });
    const sleeping = await run(agent, { orderId: newOrder() });
    expect(sleeping.status).toBe("SLEEPING");
    clock.advance(121_000);
    await drain();

    const [packet] = await t.store.findPackets({ runId: sleeping.id, status: ["PENDING"] });
    expect(packet.content.why).toMatch(/"order" \(an observation that expired 1 min ago\)/);
    expect(effectsOf("payments", sleeping.id)).toHaveLength(0);
    await t.runtime.decidePacket({ packetId: packet.id, reviewer: "rita@example.com", input: { decision: "approve" } });
    await drain();
    expect((await t.runtime.getRun(sleeping.id)).status).toBe("COMPLETED");
    expect(effectsOf("payments", sleeping.id)).toHaveLength(1);
  });

  describe("approvals are bound to the rule version: a change of capabilities or conditions counts", () => {
    async function approvedRefund() {
      const agent = register(refundAgent(uid("bound-cap")));
      await grant(t.runtime, agent, { "payments.refund": { conditions: [OVER_LIMIT] } });
      const waiting = await run(agent, { orderId: newOrder(24_000), email: "bob@example.com" });
      const [packet] = await t.store.findPackets({ runId: waiting.id, status: ["PENDING"] });
      await t.runtime.decidePacket({
        packetId: packet.id,
        reviewer: "rita@example.com",
        input: { decision: "approve" },
      });
      const rule = (await t.runtime.permissions.list(agent.slug)).find(
        (r) => r.agent === agent.slug && r.tool === "payments.refund",
      )!;
      return { agent, runId: waiting.id, packet, rule };
    }

    it("narrowed to execute only, or given a binding, after the approval: a new version, so people are asked again", async () => {
      for (const change of [{ capabilities: ["execute"] }, { conditions: [OVER_LIMIT, SAME_ORDER] }]) {
        const { agent, runId, packet, rule } = await approvedRefund();
        const saved = await t.runtime.permissions.put(
          { agent: agent.slug, tool: "payments.refund", effect: "allow", conditions: [OVER_LIMIT], ...change },
          { by: "admin@test", expectedVersion: rule.version },
        );
        expect(saved.version).toBe(rule.version + 1);
        await drain();
        expect(effectsOf("payments", runId)).toHaveLength(0);
        const [revalidated] = await eventsOf(runId, "gate.revalidated");
        expect(revalidated.data.why).toBe(
          `the permission rule changed (${rule.id}@v${rule.version} → ${rule.id}@v${saved.version})`,
        );
        const [again] = await t.store.findPackets({ runId, status: ["PENDING"] });
        expect(again.id).not.toBe(packet.id);
      }
    });

    it("execute taken away after the approval: the approved refund is refused, with the reason", async () => {
      const { agent, runId, rule } = await approvedRefund();
      await t.runtime.permissions.put(
        {
          agent: agent.slug,
          tool: "payments.refund",
          effect: "allow",
          conditions: [OVER_LIMIT],
          capabilities: ["read", "draft"],
        },
        { by: "admin@test", expectedVersion: rule.version },
      );
      await drain();
      expect(effectsOf("payments", runId)).toHaveLength(0);
      const [refused] = await eventsOf(runId, "gate.refused");
      expect(refused.data.why).toMatch(
        /permission was revoked while the run waited: .*only read, draft with payments\.refund, not execute/,
      );
    });
  });

  it("the store keeps capabilities and fresh evidence, versioned and in the history", async () => {
    const agent = uid("stored");
    const first = await t.runtime.permissions.put(
      { agent, tool: "payments.refund", effect: "allow" },
      { by: "admin@test" },
    );
    expect(first).toMatchObject({
      capabilities: ["read", "draft", "approve", "execute"],
      freshEvidence: false,
      version: 1,
    });
    const second = await t.runtime.permissions.put(
      {
        agent,
        tool: "payments.refund",
        effect: "allow",
        capabilities: ["execute", "read"],
        freshEvidence: true,
        conditions: [SAME_ORDER],
      },
      { by: "admin@test" },
    );
    expect(second).toMatchObject({
      capabilities: ["read", "execute"],
      freshEvidence: true,
      conditions: [SAME_ORDER],
      version: 2,
    });
    expect((await t.store.listPermissionsAtEpoch(agent, "default")).rules).toEqual([
      expect.objectContaining({ capabilities: ["read", "execute"], freshEvidence: true }),
    ]);
    const [change] = await t.runtime.permissions.history(second.id);
    expect(change).toMatchObject({
      version: 2,
      before: expect.objectContaining({ freshEvidence: false }),
      after: expect.objectContaining({ capabilities: ["read", "execute"] }),
    });
  });
});

// The built-in refund agent, with the default permissions the seed and applyDefaultPermissions give it.
describe.each(providers())("the refund agent's default permissions [%s]", (_provider, url) => {
  let t: ReturnType<typeof createTestRuntime>;
  let sandbox: SandboxServer;
  const honest = { ...builtInRefundAgent.definition, slug: uid("refund-agent") };
  /** The same agent, talked into mailing someone else (say, by an injected instruction). */
  const hijacked: AgentDefinition = {
    ...honest,
    slug: uid("refund-agent"),
    policy: mailingInstead(honest.policy, "attacker@example.com"),
  };

  beforeAll(async () => {
    t = createTestRuntime(url, {
      agents: [honest, hijacked],
      tools: createBuiltInTools({ sandboxUrl: () => sandbox.url, timeoutMs: 2000 }),
    });
    sandbox = await startSandboxServer(t.db);
    await seedSandbox(t.db);
    for (const agent of [honest, hijacked]) {
      for (const rule of builtInRefundAgent.defaultPermissions)
        await t.runtime.permissions.put({ ...rule, agent: agent.slug }, { by: "admin@test" });
    }
  });
  afterAll(async () => {
    await sandbox.close();
    await t.close();
  });

  const ledger = async (runId: string): Promise<Array<{ system: string; data: Record<string, unknown> }>> =>
    (await (await fetch(`${sandbox.url}/ledger?runId=${encodeURIComponent(runId)}`)).json()).entries;
  async function refund(agent: AgentDefinition) {
    const order = await createSandboxOrder(t.db, { amountCents: 2_400 });
    const { run } = await t.runtime.startRun({ agent: agent.slug, input: { orderId: order.id } });
    await t.runtime.createWorker().drain();
    return { order, run: await t.runtime.getRun(run.id) };
  }

  it("refunds the input's order and mails its customer, whose address comes from the order read", async () => {
    const { order, run } = await refund(honest);
    expect(run.status).toBe("COMPLETED");
    expect(run.state.output).toMatchObject({ refunded: true, notified: true });
    expect((await ledger(run.id)).map((e) => e.system).sort()).toEqual(["mail", "payments"]);
    expect((await ledger(run.id)).find((e) => e.system === "mail")?.data).toMatchObject({ to: order.customerEmail });
  });

  it("a mail to anyone else is denied: the refund happens, the mail does not, and the run says why", async () => {
    const { run } = await refund(hijacked);
    expect((await ledger(run.id)).map((e) => e.system)).toEqual(["payments"]);
    expect(run.state.output).toMatchObject({
      notified: false,
      notifyError: expect.stringMatching(
        /to neq fact order\.customerEmail \(read by orders\.get\) \("attacker@example\.com" vs "[^"]+@example\.com"\)/,
      ),
    });
  });
});

function mailingInstead(policy: Policy, to: string): Policy {
  return {
    async decide(input) {
      const out = await policy.decide(input);
      const decision = out.decision;
      if (decision.kind !== "call" || decision.tool !== "mail.send") return out;
      return { ...out, decision: { ...decision, args: { ...(decision.args as Record<string, unknown>), to } } };
    },
  };
}
