import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AgentDefinition } from "../lib/runtime";
import { refundAgent } from "./support/agents";
import { createTestRuntime, expectError, grant, providers, uid } from "./support/runtime";
import { worldTools } from "./support/tools";
import { startWorld, type World } from "./support/world";

// Auto-approval predicates in the engine: a refund under the rule's skip-the-gate predicate runs without a
// packet, and its trace says which predicate let it through; one above it waits for a person.

describe.each(providers())("skip the gate when … [%s]", (_provider, url) => {
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

  async function refundOf(amountCents: number) {
    const agent = refundAgent(uid("skip-refund"));
    agents.push(agent);
    t.runtime.context.agents.set(agent.slug, agent);
    await grant(t.runtime, agent, {
      "payments.refund": {
        effect: "require_approval",
        conditions: [{ path: "amountCents", op: "lte", value: 2_000, effect: "skip_gate" }],
      },
    });
    const orderId = uid("order");
    world.orders.set(orderId, { id: orderId, amountCents, status: "paid" });
    const { run } = await t.runtime.startRun({ agent: agent.slug, input: { orderId, email: "bob@example.com" } });
    await t.runtime.createWorker().drain();
    return { agent, run: await t.runtime.getRun(run.id), events: await t.store.listEvents(run.id) };
  }

  it("a refund within the predicate runs without a packet; the trace names the predicate and its value", async () => {
    const { run, events } = await refundOf(1_500);
    expect(run.status).toBe("COMPLETED");
    expect(await t.store.findPackets({ runId: run.id })).toEqual([]);
    const check = events.find((e) => e.type === "permission.checked" && e.data.tool === "payments.refund")!;
    expect(check.data).toMatchObject({ effect: "allow", gateSkippedBy: ["amountCents ≤ 2000 (it was 1500)"] });
    expect(check.data.reason).toMatch(/allow without a gate because amountCents ≤ 2000 \(it was 1500\)/);
  });

  it("a refund above it waits for a person, as the rule says", async () => {
    const { run, events } = await refundOf(2_400);
    expect(run.status).toBe("WAITING_APPROVAL");
    const check = events.find((e) => e.type === "permission.checked" && e.data.tool === "payments.refund")!;
    expect(check.data).toMatchObject({ effect: "require_approval" });
    expect(check.data).not.toHaveProperty("gateSkippedBy");
  });

  it("refuses a skip-the-gate condition on a rule that asks no one, and writes nothing", async () => {
    const agent = uid("skip-misplaced");
    const error = await expectError(
      t.runtime.permissions.put(
        {
          agent,
          tool: "payments.refund",
          effect: "allow",
          conditions: [{ path: "amountCents", op: "lte", value: 2_000, effect: "skip_gate" }],
        },
        { by: "admin@test" },
      ),
      "INVALID_INPUT",
    );
    expect(error.fieldErrors).toEqual({
      "conditions.0.effect": ["a condition can skip the gate only on a rule that requires approval"],
    });
    expect(await t.runtime.permissions.list(agent)).toEqual([]);
  });
});
