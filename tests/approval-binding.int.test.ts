import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AgentDefinition, ToolDefinition } from "../lib/runtime";
import { toolFromRegistration, type ToolRegistrationRow } from "../lib/tools/registered";
import { refundAgent } from "./support/agents";
import { createTestRuntime, expectError, grant, providers, uid } from "./support/runtime";
import { worldTools } from "./support/tools";
import { startWorld, type World } from "./support/world";

// An approval holds only for what it was given under: the permission rule's version (its effect,
// approver count and conditions) and the tool's registration are bound into the packet's digest and
// re-validated before the action runs. And a reviewer edits only the fields the tool lets them edit.

const OVER_LIMIT = { path: "amountCents", op: "gt", value: 10_000, effect: "require_approval" } as const;

describe.each(providers())("approvals bound to the rule and the registration [%s]", (_provider, url) => {
  let world: World;
  let t: ReturnType<typeof createTestRuntime>;
  const agents: AgentDefinition[] = [];
  let refundTool: ToolDefinition;

  beforeAll(async () => {
    world = await startWorld();
    const tools = worldTools(world.url);
    refundTool = tools.find((tool) => tool.name === "payments.refund")!;
    t = createTestRuntime(url, { agents, tools });
  });
  afterAll(async () => {
    await t.close();
    await world.close();
  });
  const drain = () => t.runtime.createWorker().drain();
  const refundsOf = (runId: string) => world.effects("payments").filter((e) => e.runId === runId);

  async function waitingRefund() {
    const agent = refundAgent(uid("bound-refund"));
    agents.push(agent);
    t.runtime.context.agents.set(agent.slug, agent);
    await grant(t.runtime, agent, { "payments.refund": { conditions: [OVER_LIMIT] } });
    const orderId = uid("order");
    world.orders.set(orderId, { id: orderId, amountCents: 24_000, status: "paid" });
    const { run } = await t.runtime.startRun({ agent: agent.slug, input: { orderId, email: "bob@example.com" } });
    await drain();
    const [packet] = await t.store.findPackets({ runId: run.id, status: ["PENDING"] });
    const rule = (await t.runtime.permissions.list()).find(
      (r) => r.agent === agent.slug && r.tool === "payments.refund",
    )!;
    return { agent, runId: run.id, orderId, packet, rule };
  }

  it("the packet records the rule version it was asked under, and the digest covers it", async () => {
    const { packet, rule } = await waitingRefund();
    expect(packet.content.binding).toEqual({ rule: `${rule.id}@v${rule.version}`, tool: null });
  });

  it("a rule raised from one approver to two after the approval: the refund does not run; two people are asked", async () => {
    const { agent, runId, packet, rule } = await waitingRefund();
    await t.runtime.decidePacket({ packetId: packet.id, reviewer: "rita@example.com", input: { decision: "approve" } });
    await t.runtime.permissions.put(
      { agent: agent.slug, tool: "payments.refund", effect: "allow", conditions: [OVER_LIMIT], approvals: 2 },
      { by: "admin@test", expectedVersion: rule.version },
    );
    await drain();
    expect(refundsOf(runId)).toHaveLength(0);
    expect((await t.runtime.getRun(runId)).status).toBe("WAITING_APPROVAL");
    const [again] = await t.store.findPackets({ runId, status: ["PENDING"] });
    expect(again).toMatchObject({ tool: "payments.refund", requiredApprovals: 2 });
    expect(again.id).not.toBe(packet.id);
    const revalidated = (await t.store.listEvents(runId)).find((e) => e.type === "gate.revalidated");
    expect(revalidated?.data.why).toMatch(/needs 2 approvers, it had 1/);

    await t.runtime.decidePacket({ packetId: again.id, reviewer: "rita@example.com", input: { decision: "approve" } });
    await t.runtime.decidePacket({ packetId: again.id, reviewer: "sam@example.com", input: { decision: "approve" } });
    await drain();
    expect((await t.runtime.getRun(runId)).status).toBe("COMPLETED");
    expect(refundsOf(runId)).toHaveLength(1);
  });

  it("any other change to the rule (a new version) asks again; a rule now allowing it runs it", async () => {
    const changed = await waitingRefund();
    await t.runtime.decidePacket({
      packetId: changed.packet.id,
      reviewer: "rita@example.com",
      input: { decision: "approve" },
    });
    await t.runtime.permissions.put(
      {
        agent: changed.agent.slug,
        tool: "payments.refund",
        effect: "allow",
        conditions: [{ ...OVER_LIMIT, value: 5_000 }],
      },
      { by: "admin@test", expectedVersion: changed.rule.version },
    );
    await drain();
    expect(refundsOf(changed.runId)).toHaveLength(0);
    expect((await t.store.listEvents(changed.runId)).find((e) => e.type === "gate.revalidated")?.data.why).toMatch(
      /permission rule changed/,
    );

    const allowed = await waitingRefund();
    await t.runtime.decidePacket({
      packetId: allowed.packet.id,
      reviewer: "rita@example.com",
      input: { decision: "approve" },
    });
    await t.runtime.permissions.put(
      { agent: allowed.agent.slug, tool: "payments.refund", effect: "allow" },
      { by: "admin@test", expectedVersion: allowed.rule.version },
    );
    await drain();
    expect((await t.runtime.getRun(allowed.runId)).status).toBe("COMPLETED");
    expect(refundsOf(allowed.runId)).toHaveLength(1);
  });

  it("a tool whose registration changed after the approval is asked again, not called", async () => {
    t.runtime.context.tools.set("payments.refund", { ...refundTool, registration: "reg_1:aaaa" });
    try {
      const { runId, packet } = await waitingRefund();
      expect(packet.content.binding?.tool).toBe("reg_1:aaaa");
      await t.runtime.decidePacket({
        packetId: packet.id,
        reviewer: "rita@example.com",
        input: { decision: "approve" },
      });
      t.runtime.context.tools.set("payments.refund", { ...refundTool, registration: "reg_2:bbbb" }); // re-registered under the same name
      await drain();
      expect(refundsOf(runId)).toHaveLength(0);
      expect((await t.store.listEvents(runId)).find((e) => e.type === "gate.revalidated")?.data.why).toMatch(
        /registration changed/,
      );
      expect((await t.runtime.getRun(runId)).status).toBe("WAITING_APPROVAL");
    } finally {
      t.runtime.context.tools.set("payments.refund", refundTool);
    }
  });

  it("an edit may change only the tool's editable fields: never the order the money goes to", async () => {
    t.runtime.context.tools.set("payments.refund", { ...refundTool, editableFields: ["amountCents"] });
    try {
      const { runId, orderId, packet } = await waitingRefund();
      const error = await expectError(
        t.runtime.decidePacket({
          packetId: packet.id,
          reviewer: "rita@example.com",
          input: { decision: "edit", args: { orderId: "someone-elses-order", amountCents: 24_000 } },
        }),
        "INVALID_INPUT",
      );
      expect(error.fieldErrors).toHaveProperty("orderId");
      expect(await t.store.getPacket(packet.id, null)).toMatchObject({ status: "PENDING", version: packet.version });
      await t.runtime.decidePacket({
        packetId: packet.id,
        reviewer: "rita@example.com",
        input: { decision: "edit", args: { orderId, amountCents: 12_000 } },
      });
      await drain();
      expect(refundsOf(runId).map((e) => (e.data as { amountCents: number }).amountCents)).toEqual([12_000]);
    } finally {
      t.runtime.context.tools.set("payments.refund", refundTool);
    }
  });
});

describe("a registered tool's fingerprint", () => {
  const row: ToolRegistrationRow = {
    id: "reg_1",
    name: "http.crm_update",
    kind: "http",
    description: "updates the CRM",
    capability: "execute",
    semantics: "idempotent",
    inputSchema: JSON.stringify({ type: "object", properties: { id: { type: "string" } } }),
    config: JSON.stringify({ url: "https://crm.example.com/customers/{{id}}", method: "POST" }),
    impactTemplate: null,
    disabledAt: null,
  };
  it("changes with what the tool calls, and with a re-registration; not with its description", () => {
    const base = toolFromRegistration(row).registration;
    expect(base).toMatch(/^reg_1:/);
    expect(toolFromRegistration({ ...row, description: "reworded" }).registration).toBe(base);
    expect(
      toolFromRegistration({
        ...row,
        config: JSON.stringify({ url: "https://elsewhere.example.com/{{id}}", method: "POST" }),
      }).registration,
    ).not.toBe(base);
    expect(toolFromRegistration({ ...row, id: "reg_2" }).registration).not.toBe(base);
  });
});
