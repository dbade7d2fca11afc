import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { recordAgentVersions } from "../lib/agents/versions";
import { getActiveUser } from "../lib/auth/users";
import { createUser } from "../lib/commands/create-user";
import type { Db } from "../lib/db";
import type { AgentDefinition } from "../lib/runtime";
import { findAgentsWithVersions } from "../lib/queries/agents";
import {
  ANY,
  cellKey,
  describeChange,
  findCellHistory,
  findPermissionHistory,
  getPermissionMatrix,
} from "../lib/queries/permissions";
import { findToolRegistry } from "../lib/queries/tools";
import { changeUserRole } from "../lib/commands/change-user-role";
import { setUserDisabled } from "../lib/commands/set-user-disabled";
import { findUsers } from "../lib/queries/users";
import { disableTool, enableTool } from "../lib/commands/set-tool-disabled";
import { registerTool } from "../lib/commands/register-tool";
import { createTestRuntime, providers, uid } from "./support/runtime";

// The admin pages' query modules and domain writes, on each database: agent versions and their run
// counts, the tool registry (enable after disable), users (role, disabled; no self-lock-out) and the
// permission matrix with its history.

const agentDef = (slug: string, version: string, overrides: Partial<AgentDefinition> = {}): AgentDefinition => ({
  slug,
  version,
  name: `Agent ${slug}`,
  description: "test agent",
  instructions: `instructions of ${version}`,
  input: z.unknown(),
  tools: ["orders.get"],
  plan: [{ id: "read", title: "Read", status: "pending" }],
  policy: { decide: async () => ({ decision: { kind: "complete", output: null } }) },
  ...overrides,
});

async function createRun(db: Db, agentSlug: string, agentVersion: string, status = "COMPLETED") {
  await db.run.create({ data: { id: uid("run"), agentSlug, agentVersion, status, input: "null", state: "{}" } });
}

describe.each(providers())("admin queries [%s]", (_provider, url) => {
  let t: ReturnType<typeof createTestRuntime>;
  let db: Db;
  beforeAll(() => {
    t = createTestRuntime(url);
    db = t.db;
  });
  afterAll(() => t.close());

  describe("agents and versions", () => {
    it("records each (slug, version) once, keeps the first definition, and counts runs per version", async () => {
      const slug = uid("agent");
      const v1 = agentDef(slug, "1");
      expect(await recordAgentVersions(db, [v1], { model: null })).toBe(1);
      // start-up again, even with a changed definition under the same version: nothing is rewritten
      expect(await recordAgentVersions(db, [agentDef(slug, "1", { instructions: "changed" })])).toBe(0);
      const v2 = agentDef(slug, "2", {
        tools: ["orders.get", "payments.refund"],
        plan: [
          { id: "a", title: "A", status: "pending" },
          { id: "b", title: "B", status: "pending" },
        ],
      });
      expect(await recordAgentVersions(db, [v2], { model: "openai:gpt-test" })).toBe(1);
      // concurrent start-ups record it once
      await Promise.all([
        recordAgentVersions(db, [agentDef(slug, "3")]),
        recordAgentVersions(db, [agentDef(slug, "3")]),
      ]);
      expect(await db.agentVersion.count({ where: { slug } })).toBe(3);

      for (let i = 0; i < 3; i++) await createRun(db, slug, "1");
      await createRun(db, slug, "2");
      await createRun(db, slug, "0-unrecorded");

      const agent = (await findAgentsWithVersions(db, [v2])).find((a) => a.slug === slug)!;
      expect(agent).toMatchObject({ slug, name: `Agent ${slug}`, currentVersion: "2", totalRuns: 5 });
      const byVersion = Object.fromEntries(agent.versions.map((v) => [v.version, v]));
      expect(byVersion["1"]).toMatchObject({
        instructions: "instructions of 1",
        runCount: 3,
        isCurrent: false,
        model: null,
        tools: ["orders.get"],
        plan: [{ id: "read", title: "Read" }],
      });
      expect(byVersion["2"]).toMatchObject({
        runCount: 1,
        isCurrent: true,
        model: "openai:gpt-test",
        tools: ["orders.get", "payments.refund"],
        plan: [
          { id: "a", title: "A" },
          { id: "b", title: "B" },
        ],
      });
      expect(byVersion["3"]).toMatchObject({ runCount: 0 });
      // a version only a run remembers is listed, with its runs and no details
      expect(byVersion["0-unrecorded"]).toMatchObject({ instructions: null, runCount: 1, firstSeenAt: null });
    });

    it("shows per version its label, whether it is loaded, and its runs active, waiting and parked", async () => {
      const slug = uid("agent");
      const [v1, v2, v3] = ["1", "2", "3"].map((v) => agentDef(slug, `hash${v}`, { label: `v${v}` }));
      await recordAgentVersions(db, [v1, v2, v3]);
      for (const status of [
        "QUEUED",
        "RUNNING",
        "SLEEPING",
        "WAITING_EVENT",
        "WAITING_APPROVAL",
        "NEEDS_ATTENTION",
        "COMPLETED",
        "CANCELLED",
      ])
        await createRun(db, slug, "hash1", status);
      await createRun(db, slug, "hash2", "NEEDS_ATTENTION");
      await createRun(db, slug, "hash2", "NEEDS_ATTENTION");

      const agent = (await findAgentsWithVersions(db, [v2, v3])).find((a) => a.slug === slug)!; // 2 and 3 side by side, 1 gone
      expect(agent.currentVersion).toBe("hash3"); // the one listed last
      const byVersion = Object.fromEntries(agent.versions.map((v) => [v.version, v]));
      expect(byVersion.hash1).toMatchObject({
        label: "v1",
        loaded: false,
        runCount: 8,
        runs: { active: 2, waiting: 3, parked: 1 },
      });
      expect(byVersion.hash2).toMatchObject({
        label: "v2",
        loaded: true,
        runCount: 2,
        runs: { active: 0, waiting: 0, parked: 2 },
      });
      expect(byVersion.hash3).toMatchObject({
        label: "v3",
        loaded: true,
        isCurrent: true,
        runCount: 0,
        runs: { active: 0, waiting: 0, parked: 0 },
      });
    });

    it("lists an agent that is no longer deployed after the deployed ones", async () => {
      const gone = uid("gone");
      await recordAgentVersions(db, [agentDef(gone, "7")]);
      const agents = await findAgentsWithVersions(db, [agentDef(uid("live"), "1")]);
      expect(agents[0].currentVersion).toBe("1");
      expect(agents.find((a) => a.slug === gone)).toMatchObject({
        currentVersion: null,
        description: "No longer deployed.",
      });
    });
  });

  describe("tool registry", () => {
    it("lists built-in tools with their semantics and an example impact, then registered ones", async () => {
      const tools = await findToolRegistry(db);
      const refund = tools.find((tool) => tool.name === "payments.refund")!;
      expect(refund).toMatchObject({
        source: "built-in",
        capability: "execute",
        semantics: "idempotent",
        id: null,
        impact: "refunds $240.00 to card •‹cardLast4›",
      });
      expect(refund.inputSchema).toMatchObject({ type: "object", properties: { amountCents: expect.any(Object) } });
      expect(tools.find((tool) => tool.name === "deploys.run_migration")).toMatchObject({ semantics: "unsafe" });
    });

    it("disables and enables a registered tool, compare-and-set both ways", async () => {
      const name = `http.${uid("crm").replace("-", "_")}`;
      const tool = await registerTool(
        { db },
        {
          kind: "http",
          name,
          description: "Update the CRM",
          capability: "execute",
          semantics: "idempotent",
          config: { url: "https://crm.example.com/x", idempotencyHeader: "Idempotency-Key" },
          impactTemplate: "updates the CRM",
        },
        { by: "admin@test" },
      );
      expect((await findToolRegistry(db)).find((row) => row.name === name)).toMatchObject({
        id: tool.id,
        source: "http",
        impact: "updates the CRM",
        disabledAt: null,
        createdBy: "admin@test",
      });
      await disableTool({ db }, tool.id, { by: "admin@test" });
      expect((await findToolRegistry(db)).find((row) => row.name === name)).toMatchObject({
        disabledBy: "admin@test",
        disabledAt: expect.any(Date),
      });
      expect(await enableTool({ db }, tool.id, { by: "admin@test" })).toMatchObject({
        name,
        disabledAt: null,
        disabledBy: null,
      });
      await expect(enableTool({ db }, tool.id, { by: "admin@test" })).rejects.toMatchObject({ code: "NOT_FOUND" });
      await expect(enableTool({ db }, "tool_missing", { by: "admin@test" })).rejects.toMatchObject({
        code: "NOT_FOUND",
      });
    });

    it("audits registering, disabling and enabling in the change's own transaction; a refused change writes nothing", async () => {
      const name = `http.${uid("audited").replace("-", "_")}`;
      const input = {
        kind: "http",
        name,
        description: "Update the CRM",
        capability: "execute",
        semantics: "idempotent",
        config: {
          url: "https://crm.example.com/x",
          idempotencyHeader: "Idempotency-Key",
          headers: { authorization: "Bearer secret-value" },
        },
      };
      const tool = await registerTool({ db }, input, { by: "admin@test" });
      await disableTool({ db }, tool.id, { by: "admin@test" });
      await enableTool({ db }, tool.id, { by: "admin@test" });
      await expect(registerTool({ db }, input, { by: "admin@test" })).rejects.toMatchObject({ code: "CONFLICT" });
      await expect(disableTool({ db }, "tool_missing", { by: "admin@test" })).rejects.toMatchObject({
        code: "NOT_FOUND",
      });
      const rows = await db.auditLog.findMany({ where: { target: name }, orderBy: { at: "asc" } });
      expect(rows.map((row) => [row.actor, row.action])).toEqual([
        ["admin@test", "tools.register"],
        ["admin@test", "tools.disable"],
        ["admin@test", "tools.enable"],
      ]);
      expect(rows.map((row) => row.data).join(" ")).not.toContain("secret-value"); // what the tool is, not its settings
    });
  });

  describe("users", () => {
    const strong = "a sturdy passphrase 42";
    const newUser = (role: "admin" | "reviewer" | "operator") =>
      createUser({ db }, { email: `${uid(role)}@test.example`, role, password: strong }, { by: "t" });

    it("changes a role and disables/enables an account; a disabled account has no session", async () => {
      const admin = await newUser("admin");
      const person = await newUser("reviewer");
      expect(await changeUserRole({ db }, { userId: person.id, role: "operator" }, admin)).toEqual({
        email: person.email,
        before: { role: "reviewer" },
        after: { role: "operator" },
      });
      expect((await getActiveUser(db, person.id))?.role).toBe("operator");
      expect(await setUserDisabled({ db }, { userId: person.id, isDisabled: true }, admin)).toMatchObject({
        before: { disabled: false },
        after: { disabled: true },
      });
      expect(await getActiveUser(db, person.id)).toBeNull();
      expect((await findUsers(db)).find((u) => u.id === person.id)).toMatchObject({
        role: "operator",
        disabledAt: expect.any(Date),
        hasPassword: true,
      });
      await setUserDisabled({ db }, { userId: person.id, isDisabled: false }, admin);
      expect((await getActiveUser(db, person.id))?.email).toBe(person.email);
      await expect(changeUserRole({ db }, { userId: "usr_missing", role: "admin" }, admin)).rejects.toMatchObject({
        code: "NOT_FOUND",
      });
    });

    it("an admin cannot remove their own admin role or disable themselves", async () => {
      const admin = await newUser("admin");
      await expect(changeUserRole({ db }, { userId: admin.id, role: "operator" }, admin)).rejects.toMatchObject({
        code: "FORBIDDEN",
        userMessage: "You cannot remove your own admin role. Ask another admin.",
      });
      await expect(setUserDisabled({ db }, { userId: admin.id, isDisabled: true }, admin)).rejects.toMatchObject({
        code: "FORBIDDEN",
      });
      expect(await getActiveUser(db, admin.id)).toMatchObject({ role: "admin" });
      // another admin can
      const other = await newUser("admin");
      await changeUserRole({ db }, { userId: admin.id, role: "operator" }, other);
      expect((await getActiveUser(db, admin.id))?.role).toBe("operator");
    });
  });

  describe("permission matrix and history", () => {
    it("builds tools × agents cells: own rules per step, else the wildcard rule that applies", async () => {
      const { runtime } = t;
      const agent = uid("pm");
      const other = uid("pm-other");
      const deployed = [agentDef(agent, "1"), agentDef(other, "1")];
      await runtime.permissions.put(
        {
          agent,
          tool: "payments.refund",
          effect: "allow",
          conditions: [{ path: "amountCents", op: "gt", value: 10000, effect: "require_approval" }],
        },
        { by: "a@test" },
      );
      await runtime.permissions.put({ agent, tool: "payments.refund", step: "read", effect: "deny" }, { by: "a@test" });
      await runtime.permissions.put({ agent, tool: ANY, effect: "require_approval" }, { by: "a@test" });

      const matrix = await getPermissionMatrix({ runtime, db, agents: deployed });
      expect(matrix.agents.map((a) => a.slug).slice(0, 2)).toEqual([agent, other]);
      expect(matrix.agents.at(-1)?.slug).toBe(ANY);
      expect(matrix.tools).toContain("payments.refund");
      expect(matrix.tools.at(-1)).toBe(ANY);
      const cell = matrix.cells[cellKey(agent, "payments.refund")];
      expect(cell.rules.map((r) => [r.step, r.effect])).toEqual([
        ["*", "allow"],
        ["read", "deny"],
      ]);
      expect(cell.inherited).toBeNull();
      expect(matrix.cells[cellKey(agent, "mail.send")].inherited).toMatchObject({
        agent,
        tool: ANY,
        effect: "require_approval",
      });
      expect(matrix.cells[cellKey(other, "mail.send")].rules).toEqual([]);
    });

    it("keeps the history of a cell: each version's before/after, and a removal", async () => {
      const { runtime } = t;
      const agent = uid("ph");
      const first = await runtime.permissions.put({ agent, tool: "mail.send", effect: "allow" }, { by: "ada@test" });
      await runtime.permissions.put(
        { agent, tool: "mail.send", effect: "deny" },
        { by: "bob@test", expectedVersion: 1 },
      );
      await expect(
        runtime.permissions.put({ agent, tool: "mail.send", effect: "allow" }, { by: "eve@test", expectedVersion: 1 }),
      ).rejects.toMatchObject({ code: "CONFLICT" });
      await runtime.permissions.remove(first.id, "cy@test");

      const history = await findCellHistory(agent, "mail.send", { runtime });
      expect(history.map((c) => [c.changedBy, c.version, c.before?.effect ?? null, c.after?.effect ?? null])).toEqual([
        ["cy@test", 3, "deny", null],
        ["bob@test", 2, "allow", "deny"],
        ["ada@test", 1, null, "allow"],
      ]);
      expect(history.every((c) => c.rule === `${agent}/mail.send`)).toBe(true);
      expect(describeChange(history[1].before, history[1].after)).toEqual(["effect: allow → deny"]);
      expect(describeChange(history[0].before, history[0].after)).toEqual(["removed (was deny)"]);
      expect((await findPermissionHistory({ runtime })).some((c) => c.id === history[0].id)).toBe(true);
    });
  });
});
