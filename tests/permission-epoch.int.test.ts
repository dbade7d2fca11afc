import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { refundAgent } from "./support/agents";
import { createTestRuntime, grant, providers, uid } from "./support/runtime";
import { worldTools } from "./support/tools";
import { startWorld, type World } from "./support/world";

// Permissions are checked at the moment of acting, and the intent that follows commits only while the
// rules are still the ones checked: a rule revoked in the instant between the check and the intent's
// commit stops the call, where before it would have slipped through.

describe.each(providers())("a permission changed between the check and the intent [%s]", (_provider, url) => {
  let world: World;
  beforeAll(async () => {
    world = await startWorld();
  });
  afterAll(() => world.close());

  it("the refund checked as allowed is not made once the rule is revoked before its intent commits; the run reads the new rule", async () => {
    const agent = refundAgent(uid("epoch-refund"));
    let revoke: (() => Promise<void>) | null = null;
    const t = createTestRuntime(url, {
      agents: [agent],
      tools: worldTools(world.url),
      // "before-intent" comes after the permission check and before the intent's commit.
      onFaultPoint: async (point, info) => {
        if (point === "before-intent" && info.tool === "payments.refund" && revoke) {
          const go = revoke;
          revoke = null;
          await go();
        }
      },
    });
    try {
      await grant(t.runtime, agent);
      const [refundRule] = (await t.runtime.permissions.list(agent.slug)).filter(
        (r) => r.agent === agent.slug && r.tool === "payments.refund",
      );
      revoke = async () => {
        await t.runtime.permissions.put(
          { agent: agent.slug, tool: "payments.refund", effect: "deny" },
          { by: "admin@test", expectedVersion: refundRule.version },
        );
      };
      world.orders.set("ord-epoch", { id: "ord-epoch", amountCents: 700, status: "paid" });
      const { run } = await t.runtime.startRun({
        agent: agent.slug,
        input: { orderId: "ord-epoch", email: "e@example.com" },
      });
      await t.runtime.createWorker().drain();

      expect(revoke).toBeNull(); // the change was made at that instant
      expect(world.effects("payments").filter((e) => e.runId === run.id)).toEqual([]);
      const done = await t.runtime.getRun(run.id);
      expect(done.status).toBe("COMPLETED");
      expect(done.state.output).toMatchObject({ refunded: false });
      const checks = (await t.store.listEvents(run.id)).filter(
        (e) => e.type === "permission.checked" && e.data.tool === "payments.refund",
      );
      expect(checks.map((e) => e.data.effect)).toEqual(["deny"]); // the allowed check was never written; the second read the new rule
      expect(await t.store.listIntents(run.id)).toEqual([]);
    } finally {
      await t.close();
    }
  });
});
