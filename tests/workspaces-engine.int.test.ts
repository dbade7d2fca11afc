import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_WORKSPACE_ID, inWorkspace } from "../lib/runtime/workspace";
import { createWorkspace, createWorkspaceWithDefaults } from "../lib/commands/create-workspace";
import { refundAgent } from "./support/agents";
import { createTestRuntime, grant, providers, uid } from "./support/runtime";
import { worldTools } from "./support/tools";
import { startWorld, type World } from "./support/world";

// The worker claims every workspace's runs and drives each in its own: a step is checked against its workspace's
// rules, even when another workspace has an agent of the same name with other rules, and what the run writes (its
// packets, its audit) is its workspace's.

describe.each(providers())("a run acts under its own workspace's rules [%s]", (_provider, url) => {
  let world: World;
  beforeAll(async () => {
    world = await startWorld();
  });
  afterAll(() => world.close());

  it("the same refund is made in the workspace that allows it and refused in the one that denies it; one worker drives both", async () => {
    const agent = refundAgent(uid("ws-refund"));
    const t = createTestRuntime(url, { agents: [agent], tools: worldTools(world.url) });
    try {
      const admin = `${uid("owner")}@example.com`;
      await t.db.user.create({
        data: { id: `usr_${randomUUID().replaceAll("-", "")}`, email: admin, role: "admin", instanceAdmin: true },
      });
      const other = await createWorkspace(
        { db: t.db },
        {
          slug: uid("ws")
            .toLowerCase()
            .replace(/[^a-z0-9-]/g, "-")
            .slice(0, 40),
          name: "Other",
        },
        { by: admin },
      );
      await inWorkspace(DEFAULT_WORKSPACE_ID, () => grant(t.runtime, agent));
      await inWorkspace(other.id, () => grant(t.runtime, agent, { "payments.refund": { effect: "deny" } }));
      // Each workspace lists only its own rules.
      const rulesIn = (workspaceId: string) => inWorkspace(workspaceId, () => t.runtime.permissions.list(agent.slug));
      expect((await rulesIn(DEFAULT_WORKSPACE_ID)).find((r) => r.tool === "payments.refund")?.effect).toBe("allow");
      expect((await rulesIn(other.id)).find((r) => r.tool === "payments.refund")?.effect).toBe("deny");

      world.orders.set("ord-ws-a", { id: "ord-ws-a", amountCents: 700, status: "paid" });
      world.orders.set("ord-ws-b", { id: "ord-ws-b", amountCents: 700, status: "paid" });
      const { run: allowed } = await inWorkspace(DEFAULT_WORKSPACE_ID, () =>
        t.runtime.startRun({ agent: agent.slug, input: { orderId: "ord-ws-a", email: "a@example.com" } }),
      );
      const { run: refused } = await inWorkspace(other.id, () =>
        t.runtime.startRun({ agent: agent.slug, input: { orderId: "ord-ws-b", email: "b@example.com" } }),
      );
      expect([allowed.workspaceId, refused.workspaceId]).toEqual([DEFAULT_WORKSPACE_ID, other.id]);
      await t.runtime.createWorker().drain(); // the system's worker: not inside either workspace

      expect(world.effects("payments").filter((e) => e.runId === allowed.id)).toHaveLength(1);
      expect(world.effects("payments").filter((e) => e.runId === refused.id)).toEqual([]);
      const checked = async (runId: string) =>
        (await t.store.listEvents(runId))
          .filter((e) => e.type === "permission.checked" && e.data.tool === "payments.refund")
          .map((e) => e.data.effect);
      expect(await checked(allowed.id)).toEqual(["allow"]);
      expect(await checked(refused.id)).toEqual(["deny"]);
      // From inside a workspace, another workspace's run is not there.
      expect(await inWorkspace(other.id, () => t.store.getRun(allowed.id))).toBeNull();
      expect((await inWorkspace(DEFAULT_WORKSPACE_ID, () => t.store.getRun(allowed.id)))?.status).toBe("COMPLETED");
    } finally {
      await t.close();
    }
  });

  it("a new workspace starts with the rules the deployment's agents declare, its own to change", async () => {
    const t = createTestRuntime(url);
    try {
      const admin = `${uid("owner")}@example.com`;
      await t.db.user.create({
        data: { id: `usr_${randomUUID().replaceAll("-", "")}`, email: admin, role: "admin", instanceAdmin: true },
      });
      const fresh = await createWorkspaceWithDefaults(
        { db: t.db, runtime: t.runtime },
        {
          slug: uid("fresh")
            .toLowerCase()
            .replace(/[^a-z0-9-]/g, "-")
            .slice(0, 40),
          name: "Fresh",
        },
        { by: admin },
      );
      const rules = await inWorkspace(fresh.id, () => t.runtime.permissions.list("refund-agent"));
      expect(rules.some((r) => r.agent === "refund-agent" && r.tool === "payments.refund")).toBe(true);
      expect(await t.db.membership.findMany({ where: { workspaceId: fresh.id }, select: { role: true } })).toEqual([
        { role: "admin" },
      ]);
    } finally {
      await t.close();
    }
  });
});
