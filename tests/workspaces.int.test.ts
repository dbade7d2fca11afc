import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cancelRunAction } from "../lib/actions/runs";
import { revokeApiTokenAction } from "../lib/actions/tokens";
import { changeUserRoleAction } from "../lib/actions/users";
import { setActionEnvironment } from "../lib/actions/define-action";
import { API_SCOPES } from "../lib/api/scopes";
import { createApiToken } from "../lib/api/tokens";
import { createUser } from "../lib/commands/create-user";
import type { SessionUser } from "../lib/auth/rbac";
import { createDb, type Db } from "../lib/db";
import { getRunDetail } from "../lib/queries/runs";
import { countPendingPackets, findConsoleInboxPage, findPacket } from "../lib/queries/packets";
import { parseInboxFilters } from "../lib/inbox/queue";
import { createPrismaStore } from "../lib/store/prisma-store";
import { findRunList } from "../lib/queries/run-list";
import { findApiTokens } from "../lib/api/tokens";
import { DEFAULT_WORKSPACE_ID, enteredWorkspace, inWorkspace } from "../lib/runtime/workspace";
import { writeAudit } from "../lib/audit/audit-log";
import { createWorkspace } from "../lib/commands/create-workspace";
import { putMember } from "../lib/commands/put-member";
import { removeMember } from "../lib/commands/remove-member";
import { roleIn } from "../lib/workspaces/members";
import { findWorkspaceMembers } from "../lib/queries/workspaces";
import { scopeArgs, WORKSPACE_MODELS, OWNED_THROUGH } from "../lib/workspaces/scope";
import { ROUTE_TABLE } from "./support/route-table";
import { startRouteServer } from "./support/route-server";
import { providers, uid } from "./support/runtime";

// Workspaces keep teams apart: another workspace's object is not there (404, so ids do not leak), whichever door
// is used — an API route, a server action, an MCP tool or a read model — and nothing of it changes.

describe.each(providers())("workspaces [%s]", (_provider, url) => {
  let server: Awaited<ReturnType<typeof startRouteServer>>;
  let db: Db;
  const a = { token: "", email: "", gateId: "", runId: "", packetId: "", tokenId: "", scheduleId: "" };
  const b = { token: "", email: "", workspaceId: "", slug: "" };

  const call = async (method: string, path: string, token: string, body?: unknown) => {
    const res = await fetch(server.url + path, {
      method,
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, text: await res.text() };
  };

  const person = async (role: "admin" | "reviewer", opts: { instanceAdmin?: boolean } = {}) => {
    const email = `${uid(role)}@example.com`;
    await db.user.create({
      data: { id: `usr_${randomUUID().replaceAll("-", "")}`, email, role, instanceAdmin: opts.instanceAdmin ?? false },
    });
    return email;
  };

  beforeAll(async () => {
    process.env.DATABASE_URL = url;
    db = createDb(url);
    server = await startRouteServer();
    // Workspace A is the default one; B is new, with an admin who is a member of B only.
    a.email = await person("admin");
    a.token = (
      await inWorkspace(DEFAULT_WORKSPACE_ID, () =>
        createApiToken(db, { name: uid("a"), scopes: [...API_SCOPES] }, { createdBy: a.email }),
      )
    ).token;
    const creator = await person("admin", { instanceAdmin: true });
    b.slug = uid("ws")
      .toLowerCase()
      .replace(/[^a-z0-9-]/g, "-")
      .slice(0, 40);
    const workspace = await createWorkspace({ db }, { slug: b.slug, name: "Team B" }, { by: creator });
    b.workspaceId = workspace.id;
    b.email = await person("reviewer"); // a reviewer in the default workspace…
    await putMember({ db }, { workspaceId: b.workspaceId, input: { email: b.email, role: "admin" }, by: creator }); // …and an admin in B
    b.token = (
      await inWorkspace(b.workspaceId, () =>
        createApiToken(db, { name: uid("b"), scopes: [...API_SCOPES] }, { createdBy: b.email }),
      )
    ).token;

    // A's objects: an open gate (a run), a pending packet of its run, a token and a schedule.
    const gate = await call("POST", "/api/gates", a.token, {
      action: { tool: "payments.refund", args: { orderId: uid("ord"), amount: 4200 } },
      description: "Refund",
      idempotencyKey: uid("gate"),
    });
    expect(gate.status, gate.text).toBeLessThan(300);
    a.gateId = (JSON.parse(gate.text) as { gateId: string }).gateId;
    const run = await db.run.findFirstOrThrow({
      where: { workspaceId: DEFAULT_WORKSPACE_ID },
      orderBy: { createdAt: "desc" },
    });
    a.runId = run.id;
    a.packetId = uid("pkt");
    await db.decisionPacket.create({
      data: {
        id: a.packetId,
        runId: a.runId,
        step: 1,
        kind: "APPROVAL",
        tool: "payments.refund",
        args: "{}",
        digest: "d",
        status: "PENDING",
        requestedBy: "agent:x",
        packet: "{}",
      },
    });
    const tokens = JSON.parse((await call("GET", "/api/tokens", a.token)).text) as
      { tokens?: Array<{ id: string }> } | Array<{ id: string }>;
    a.tokenId = (Array.isArray(tokens) ? tokens : (tokens.tokens ?? []))[0]!.id;
    const schedule = await call("POST", "/api/schedules", a.token, {
      name: uid("nightly"),
      agent: "refund-agent",
      cron: "0 3 * * *",
      input: { orderId: "ord_1" },
    });
    a.scheduleId =
      (JSON.parse(schedule.text) as { id?: string; schedule?: { id: string } }).id ??
      (JSON.parse(schedule.text) as { schedule: { id: string } }).schedule.id;
  }, 120_000);

  afterAll(async () => {
    setActionEnvironment(null);
    await server.close();
    await db.$disconnect();
  });

  it("a person's role is their membership's in each workspace; a stranger has none", async () => {
    expect(await roleIn(db, { email: b.email }, DEFAULT_WORKSPACE_ID)).toBe("reviewer");
    expect(await roleIn(db, { email: b.email }, b.workspaceId)).toBe("admin");
    expect(await roleIn(db, { email: a.email }, b.workspaceId)).toBeNull();
    // Someone created from B's admin page is B's only: the default workspace does not exist for them.
    const newcomer = await inWorkspace(b.workspaceId, () =>
      createUser(
        { db },
        { email: `${uid("new")}@example.com`, role: "operator", password: "correct horse battery staple 42" },
        { by: b.email },
      ),
    );
    expect(await roleIn(db, { email: newcomer.email }, b.workspaceId)).toBe("operator");
    expect(await roleIn(db, { email: newcomer.email }, DEFAULT_WORKSPACE_ID)).toBeNull();
  });

  it("a member taken out of a workspace cannot open it any more, with an audit row; the last admin, an instance admin and a default-only person stay", async () => {
    const creator = await person("admin", { instanceAdmin: true });
    const slug = uid("rm")
      .toLowerCase()
      .replace(/[^a-z0-9-]/g, "-")
      .slice(0, 40);
    const workspace = await createWorkspace({ db }, { slug, name: "Team R" }, { by: creator });
    const admin = await person("reviewer");
    const operator = await person("reviewer");
    await putMember({ db }, { workspaceId: workspace.id, input: { email: admin, role: "admin" }, by: creator });
    await putMember({ db }, { workspaceId: workspace.id, input: { email: operator, role: "operator" }, by: creator });

    // The page offers Remove only where it takes effect.
    const removable = async (workspaceId: string) =>
      Object.fromEntries((await findWorkspaceMembers(workspaceId)).map((m) => [m.email, m.removable]));
    expect(await removable(workspace.id)).toMatchObject({ [operator]: true, [admin]: true, [creator]: false });
    expect(await removable(DEFAULT_WORKSPACE_ID)).toMatchObject({ [operator]: true, [creator]: false });

    await removeMember({ db }, { workspaceId: workspace.id, input: { email: operator }, by: admin });
    expect(await roleIn(db, { email: operator }, workspace.id)).toBeNull();
    expect(await roleIn(db, { email: operator }, DEFAULT_WORKSPACE_ID)).toBe("reviewer"); // their other workspace stays
    const audit = await inWorkspace(workspace.id, () =>
      db.auditLog.findMany({ where: { action: "workspaces.member.remove" } }),
    );
    expect(audit.map((row) => [row.actor, row.target])).toEqual([[admin, operator]]);
    await expect(
      removeMember({ db }, { workspaceId: workspace.id, input: { email: operator }, by: admin }),
    ).rejects.toMatchObject({
      code: "NOT_FOUND",
    });

    // Refused, and nothing changes: an instance admin (they open every workspace anyway); the last admin who can sign
    // in (once the creator's account is disabled); someone whose only workspace is the default one; a malformed email.
    await expect(
      removeMember({ db }, { workspaceId: workspace.id, input: { email: creator }, by: admin }),
    ).rejects.toMatchObject({
      code: "CONFLICT",
    });
    await db.user.update({ where: { email: creator }, data: { disabledAt: new Date() } });
    await expect(
      removeMember({ db }, { workspaceId: workspace.id, input: { email: admin }, by: creator }),
    ).rejects.toMatchObject({
      code: "CONFLICT",
    });
    expect(await roleIn(db, { email: admin }, workspace.id)).toBe("admin");
    const defaultOnly = await person("reviewer");
    expect(await removable(DEFAULT_WORKSPACE_ID)).toMatchObject({ [defaultOnly]: false, [operator]: false });
    await expect(
      removeMember({ db }, { workspaceId: DEFAULT_WORKSPACE_ID, input: { email: defaultOnly }, by: creator }),
    ).rejects.toMatchObject({ code: "CONFLICT" });
    expect(await roleIn(db, { email: defaultOnly }, DEFAULT_WORKSPACE_ID)).toBe("reviewer");
    await expect(
      removeMember({ db }, { workspaceId: workspace.id, input: { email: "not an email" }, by: admin }),
    ).rejects.toMatchObject({
      code: "INVALID_INPUT",
    });
  });

  it("every API route that names an object answers 404 to another workspace's token, and the object is unchanged", async () => {
    const idFor: Record<string, string> = {
      "/api/runs/[id]": a.runId,
      "/api/packets/[id]": a.packetId,
      "/api/gates/[id]": a.gateId,
      "/api/tokens/[id]": a.tokenId,
      "/api/schedules/[id]": a.scheduleId,
      "/api/langgraph/threads/[id]": a.runId,
    };
    const checked: string[] = [];
    for (const [entry, auth] of Object.entries(ROUTE_TABLE)) {
      const [method, pattern] = entry.split(" ");
      if (
        !pattern ||
        method === "OPTIONS" ||
        pattern.startsWith("/api/console/") ||
        auth === "signature" ||
        auth === "method-not-allowed"
      )
        continue;
      const prefix = Object.keys(idFor).find((p) => pattern.startsWith(p));
      if (!prefix) continue;
      const path = pattern.replace(prefix, prefix.replace("[id]", idFor[prefix]));
      const answer = await call(method, path, b.token, method === "GET" || method === "DELETE" ? undefined : {});
      // A body the route cannot read is refused before the object is looked up (400): that, too, says nothing of it.
      expect([404, 400], `${entry} → ${answer.status} ${answer.text.slice(0, 200)}`).toContain(answer.status);
      if (method === "GET") expect(answer.status, entry).toBe(404);
      checked.push(entry);
    }
    expect(checked.length).toBeGreaterThanOrEqual(15);
    // The same calls with A's own token find them: the 404s were the workspace, not a wrong id.
    for (const path of [`/api/runs/${a.runId}`, `/api/schedules/${a.scheduleId}`, `/api/gates/${a.gateId}`]) {
      const own = await call("GET", path, a.token);
      expect(own.status, `${path}: ${own.text.slice(0, 200)}`).toBe(200);
    }
    const [run, packet, token, schedule] = await Promise.all([
      db.run.findUniqueOrThrow({ where: { id: a.runId } }),
      db.decisionPacket.findUniqueOrThrow({ where: { id: a.packetId } }),
      db.apiToken.findUniqueOrThrow({ where: { id: a.tokenId } }),
      db.schedule.findUnique({ where: { id: a.scheduleId } }),
    ]);
    expect(run.status).not.toBe("CANCELLED");
    expect(packet.status).toBe("PENDING");
    expect(token.revokedAt).toBeNull();
    expect(schedule).not.toBeNull();
  }, 120_000);

  it("lists show only the workspace's own: runs, packets, tokens, schedules, audit", async () => {
    for (const path of ["/api/runs", "/api/packets", "/api/tokens", "/api/schedules", "/api/audit"]) {
      const answer = await call("GET", path, b.token);
      expect(answer.status, path).toBe(200);
      for (const id of [a.runId, a.packetId, a.tokenId, a.scheduleId])
        expect(answer.text, `${path} shows ${id}`).not.toContain(id);
    }
    expect((await call("GET", "/api/runs", a.token)).text).toContain(a.runId);
  });

  it("an MCP tool answers another workspace's run as not found", async () => {
    const res = await fetch(`${server.url}/api/mcp`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        authorization: `Bearer ${b.token}`,
        "mcp-protocol-version": "2025-11-25",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "get_run", arguments: { id: a.runId } },
      }),
    });
    const text = await res.text();
    expect(text).not.toContain('"status":"');
    expect(text).toMatch(/not found|does not exist|NOT_FOUND/i);
  });

  it("server actions and read models in B do not find A's objects, and change nothing", async () => {
    const user: SessionUser = {
      id: "usr_b",
      email: b.email,
      name: null,
      role: "admin",
      workspace: { id: b.workspaceId, slug: b.slug, name: "Team B" },
    };
    setActionEnvironment({ getUser: async () => user, getDb: () => db, revalidatePath: () => {} });
    expect(await cancelRunAction({ runId: a.runId })).toMatchObject({ ok: false, code: "NOT_FOUND" });
    expect(await revokeApiTokenAction({ tokenId: a.tokenId })).toMatchObject({ ok: false, code: "NOT_FOUND" });
    // An admin of B is a reviewer in the default workspace: B's admin pages cannot raise their own account's role.
    const own = await db.user.findUniqueOrThrow({ where: { email: b.email } });
    expect(await changeUserRoleAction({ userId: own.id, role: "admin" })).toMatchObject({
      ok: false,
      code: "FORBIDDEN",
    });
    expect((await db.user.findUniqueOrThrow({ where: { email: b.email } })).role).toBe("reviewer");
    expect((await db.run.findUniqueOrThrow({ where: { id: a.runId } })).status).not.toBe("CANCELLED");
    expect((await db.apiToken.findUniqueOrThrow({ where: { id: a.tokenId } })).revokedAt).toBeNull();

    await inWorkspace(b.workspaceId, async () => {
      expect(await getRunDetail(a.runId)).toBeNull();
      expect((await findRunList(db, {})).runs.map((r) => r.id)).not.toContain(a.runId);
      expect((await findApiTokens(db)).map((t) => t.id)).not.toContain(a.tokenId);
    });
    await inWorkspace(DEFAULT_WORKSPACE_ID, async () => {
      expect((await findRunList(db, {})).runs.map((r) => r.id)).toContain(a.runId);
    });
  });

  it("the inbox, its badge and a packet's page in B count and show none of A's pending packets", async () => {
    // The inbox pages, counts and facets in raw SQL: the scope's Prisma extension does not see them.
    const store = createPrismaStore(db);
    const deps = { db, store, findTool: async () => undefined };
    const inbox = () => findConsoleInboxPage({ filters: parseInboxFilters({}), me: b.email }, deps);
    await inWorkspace(b.workspaceId, async () => {
      const page = await inbox();
      expect(page.items).toEqual([]);
      expect(page).toMatchObject({ total: 0, pending: 0 });
      expect(page.facets).toEqual({ agents: [], tools: [], capabilities: [], assignees: [], queues: [] });
      expect(await countPendingPackets(b.email, { db })).toEqual({ pending: 0, mine: 0 });
      expect(await findPacket(a.packetId, { store })).toBeNull();
    });
    await inWorkspace(DEFAULT_WORKSPACE_ID, async () => {
      const page = await inbox();
      expect(page.items.map((item) => item.id)).toContain(a.packetId);
      expect(page.facets?.tools).toContain("payments.refund");
      expect((await countPendingPackets(a.email, { db })).pending).toBe(page.pending);
      expect(await findPacket(a.packetId, { store })).toMatchObject({ id: a.packetId });
    });
  });

  it("an audit row written with a workspace's id and no workspace entered is that workspace's, not the default's", async () => {
    expect(enteredWorkspace()).toBeUndefined(); // as the store runs for a public route or the worker's claim loop
    const target = uid("audited");
    // In a transaction, as the store writes it beside its change.
    await db.$transaction((tx) =>
      writeAudit(tx, { actor: "store@test", action: "packets.decide", target }, b.workspaceId),
    );
    // Without the id, the same row falls to the column's default: the check below tells the two apart.
    await writeAudit(db, { actor: "store@test", action: "packets.assign", target });
    const rows = await db.auditLog.findMany({ where: { target }, orderBy: { action: "asc" } });
    expect(rows.map((row) => [row.action, row.workspaceId])).toEqual([
      ["packets.assign", DEFAULT_WORKSPACE_ID],
      ["packets.decide", b.workspaceId],
    ]);
    const listedIn = (workspaceId: string) =>
      inWorkspace(workspaceId, () => db.auditLog.findMany({ where: { target }, select: { action: true } }));
    expect(await listedIn(b.workspaceId)).toEqual([{ action: "packets.decide" }]);
    expect(await listedIn(DEFAULT_WORKSPACE_ID)).toEqual([{ action: "packets.assign" }]);
  });

  it("every model a workspace owns gets the workspace's condition on every operation, and its id on every create", () => {
    const operations = [
      "findUnique",
      "findFirst",
      "findMany",
      "count",
      "update",
      "updateMany",
      "delete",
      "deleteMany",
      "upsert",
      "aggregate",
      "groupBy",
    ];
    for (const model of [...WORKSPACE_MODELS, ...Object.keys(OWNED_THROUGH)]) {
      for (const operation of operations) {
        const scoped = scopeArgs(model, operation, { where: { id: "x" } }, "ws_1");
        expect(JSON.stringify(scoped.where), `${model}.${operation}`).toContain('"workspaceId":"ws_1"');
      }
    }
    // Every model with a workspaceId column is scoped (a new one cannot be forgotten); Membership is the person's, across workspaces.
    const models = (
      db as unknown as { _runtimeDataModel: { models: Record<string, { fields: Array<{ name: string }> }> } }
    )._runtimeDataModel.models;
    const withColumn = Object.entries(models)
      .filter(([, m]) => m.fields.some((f) => f.name === "workspaceId"))
      .map(([name]) => name);
    expect(withColumn.filter((name) => name !== "Membership").sort()).toEqual([...WORKSPACE_MODELS].sort());
    for (const model of WORKSPACE_MODELS) {
      expect(scopeArgs(model, "create", { data: { id: "x" } }, "ws_1").data).toMatchObject({ workspaceId: "ws_1" });
      expect(() => scopeArgs(model, "create", { data: { id: "x", workspaceId: "ws_2" } }, "ws_1")).toThrow(
        /another workspace/,
      );
    }
  });
});
