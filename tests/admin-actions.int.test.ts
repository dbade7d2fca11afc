import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setActionEnvironment } from "../lib/actions/define-action";
import { decidePacketAction } from "../lib/actions/packets";
import { putPermissionAction, removePermissionAction } from "../lib/actions/permissions";
import { createApiTokenAction, revokeApiTokenAction } from "../lib/actions/tokens";
import { changeUserRoleAction, createUserAction, setUserDisabledAction } from "../lib/actions/users";
import { demoAgents } from "../lib/agents";
import { authenticateApiToken } from "../lib/api/tokens";
import { findAuditLog } from "../lib/audit/audit-log";
import type { SessionUser } from "../lib/auth/rbac";
import { createDb, type Db } from "../lib/db";
import { findAdminAudit } from "../lib/queries/audit";
import { findTokens } from "../lib/queries/tokens";
import { getRuntime } from "../lib/runtime.server";
import { startSandboxServer, type SandboxServer } from "../lib/sandbox/http-server";
import { seedSandbox } from "../lib/sandbox/seed";
import { providers, uid } from "./support/runtime";
import { createSandboxOrder } from "./support/sandbox-world";

// The admin server actions end to end on each database, with an injected session: admin:manage is
// checked on the server (a reviewer is refused and nothing changes), tokens are shown once and stored
// hashed, users cannot lock themselves out, and a permission revoked while a run waits for approval is
// honoured when the approval arrives.

describe.each(providers())("admin actions [%s]", (_provider, url) => {
  let db: Db;
  let sandbox: SandboxServer;
  let session: SessionUser | null = null;
  const admin = (): SessionUser => ({
    id: uid("usr"),
    email: `${uid("admin")}@test.example`,
    name: null,
    role: "admin",
  });
  const reviewer = (): SessionUser => ({
    id: uid("usr"),
    email: `${uid("reviewer")}@test.example`,
    name: null,
    role: "reviewer",
  });

  beforeAll(async () => {
    db = createDb(url);
    process.env.DATABASE_URL = url; // the runtime's composition root follows it
    sandbox = await startSandboxServer(db);
    process.env.TETHER_SANDBOX_URL = sandbox.url;
    await seedSandbox(db);
    setActionEnvironment({ getUser: async () => session, getDb: () => db, revalidatePath: () => {} });
  });
  afterAll(async () => {
    setActionEnvironment(null);
    await sandbox.close();
    await db.$disconnect();
  });

  /** The signed-in admin as a stored person (a token acts as the person who holds it). */
  async function signedInAdmin(): Promise<SessionUser> {
    const user = admin();
    await db.user.create({ data: { id: user.id, email: user.email, role: "admin" } });
    return (session = user);
  }

  it("creates an API token shown once (stored hashed, never audited), then revokes it", async () => {
    const me = await signedInAdmin();
    const name = uid("ci");
    const created = await createApiTokenAction({ name, scopes: ["runs:read"] });
    if (!created.ok) throw new Error(created.message);
    expect(created.data.token).toMatch(/^tth_/);
    expect(await authenticateApiToken(db, created.data.token)).toMatchObject({ name, scopes: ["runs:read"] });
    const listed = (await findTokens(db)).find((t) => t.id === created.data.id)!;
    expect(listed).toMatchObject({
      name,
      scopes: ["runs:read"],
      createdBy: me.email,
      user: me.email,
      expiresAt: null,
      revokedAt: null,
      lastUsedAt: expect.any(Date),
    });
    expect(JSON.stringify(listed)).not.toContain(created.data.token);
    const [audit] = await findAuditLog(db, { target: created.data.id });
    // The same row POST /api/tokens writes (create-token), without `via`: the console is the default.
    expect(audit).toMatchObject({ actor: me.email, action: "tokens.create" });
    expect(audit.data).toEqual({ name, scopes: ["runs:read"], user: me.email, expiresAt: null });
    expect(JSON.stringify(audit)).not.toContain(created.data.token);

    expect(await revokeApiTokenAction({ tokenId: created.data.id })).toEqual({
      ok: true,
      data: { tokenId: created.data.id },
    });
    expect(await authenticateApiToken(db, created.data.token)).toBeNull();
    expect(await revokeApiTokenAction({ tokenId: created.data.id })).toMatchObject({ ok: false, code: "NOT_FOUND" });
    expect(await createApiTokenAction({ name: "", scopes: [] })).toMatchObject({
      ok: false,
      code: "INVALID_INPUT",
      fieldErrors: { name: expect.any(Array), scopes: expect.any(Array) },
    });
  });

  it("refuses every admin action to a reviewer, changes nothing and audits the attempt", async () => {
    await signedInAdmin();
    const token = await createApiTokenAction({ name: uid("keep"), scopes: ["admin"] });
    if (!token.ok) throw new Error(token.message);
    const agent = uid("agent");
    const rule = await putPermissionAction({ agent, tool: "mail.send", effect: "allow", expectedVersion: 0 });
    if (!rule.ok) throw new Error(rule.message);

    session = reviewer();
    const refusals = await Promise.all([
      revokeApiTokenAction({ tokenId: token.data.id }),
      createApiTokenAction({ name: "sneaky", scopes: ["admin"] }),
      putPermissionAction({ agent, tool: "mail.send", effect: "deny", expectedVersion: 1 }),
      removePermissionAction({ permissionId: rule.data.id }),
      createUserAction({ email: `${uid("x")}@test.example`, role: "admin", password: "a sturdy passphrase 42" }),
      changeUserRoleAction({ userId: session.id, role: "admin" }),
      setUserDisabledAction({ userId: "usr_any", isDisabled: true }),
    ]);
    for (const result of refusals) expect(result).toMatchObject({ ok: false, code: "FORBIDDEN" });
    expect(await authenticateApiToken(db, token.data.token)).not.toBeNull();
    expect(await getRuntime().permissions.list(agent)).toEqual([
      expect.objectContaining({ id: rule.data.id, effect: "allow", version: 1 }),
    ]);
    expect(await findAuditLog(db, { actor: session.email, action: "tokens.revoke.denied" })).toHaveLength(1);
    // the tokens page's activity list: this admin's create and the reviewer's refused revoke, not other kinds
    const activity = await findAdminAudit(["tokens."], { db, limit: 200 });
    expect(activity.filter((e) => e.actor === session!.email).map((e) => e.action)).toEqual(
      expect.arrayContaining(["tokens.revoke.denied", "tokens.create.denied"]),
    );
    expect(activity.every((e) => e.action.startsWith("tokens."))).toBe(true);
    // no session at all: UNAUTHENTICATED, before any validation
    session = null;
    expect(
      await putPermissionAction({ agent: "", tool: "", effect: "deny", expectedVersion: -1 } as never),
    ).toMatchObject({ ok: false, code: "UNAUTHENTICATED" });
  });

  it("users: creates one (no password in the audit), changes a role, refuses self-demotion and self-disabling", async () => {
    const me = admin();
    session = me;
    const email = `${uid("new")}@test.example`;
    const created = await createUserAction({
      email,
      name: "New",
      role: "reviewer",
      password: "a sturdy passphrase 42",
    });
    if (!created.ok) throw new Error(created.message);
    const [audit] = await findAuditLog(db, { target: email, action: "users.create" });
    expect(JSON.stringify(audit.data)).not.toContain("sturdy");
    expect(
      await createUserAction({ email: `${uid("weak")}@test.example`, role: "reviewer", password: "short" }),
    ).toMatchObject({ ok: false, code: "INVALID_INPUT", fieldErrors: { password: expect.any(Array) } });

    expect(await changeUserRoleAction({ userId: created.data.id, role: "operator" })).toMatchObject({
      ok: true,
      data: { before: { role: "reviewer" }, after: { role: "operator" } },
    });
    expect(await findAuditLog(db, { target: email, action: "users.role" })).toEqual([
      expect.objectContaining({
        actor: me.email,
        data: { email, before: { role: "reviewer" }, after: { role: "operator" } },
      }),
    ]);
    expect(await setUserDisabledAction({ userId: created.data.id, isDisabled: true })).toMatchObject({
      ok: true,
      data: { after: { disabled: true } },
    });

    // the signed-in admin is a real row so the self checks are about them
    const self = await createUserAction({
      email: `${uid("self")}@test.example`,
      role: "admin",
      password: "a sturdy passphrase 42",
    });
    if (!self.ok) throw new Error(self.message);
    session = { ...self.data };
    expect(await changeUserRoleAction({ userId: self.data.id, role: "reviewer" })).toMatchObject({
      ok: false,
      code: "FORBIDDEN",
      message: "You cannot remove your own admin role. Ask another admin.",
    });
    expect(await setUserDisabledAction({ userId: self.data.id, isDisabled: true })).toMatchObject({
      ok: false,
      code: "FORBIDDEN",
      message: "You cannot disable your own account.",
    });
    expect(await db.user.findUniqueOrThrow({ where: { id: self.data.id } })).toMatchObject({
      role: "admin",
      disabledAt: null,
    });
  });

  it("permissions: a stale expected version is a CONFLICT; the winner stays", async () => {
    session = admin();
    const agent = uid("agent");
    const first = await putPermissionAction({
      agent,
      tool: "payments.refund",
      effect: "allow",
      conditions: [{ path: "amountCents", op: "gt", value: 10000, effect: "require_approval" }],
      queue: "refunds",
      expectedVersion: 0,
    });
    expect(first).toMatchObject({ ok: true, data: { version: 1, queue: "refunds" } });
    const [a, b] = [
      await putPermissionAction({ agent, tool: "payments.refund", effect: "deny", expectedVersion: 1 }),
      await putPermissionAction({ agent, tool: "payments.refund", effect: "require_approval", expectedVersion: 1 }),
    ];
    expect(a).toMatchObject({ ok: true, data: { effect: "deny", version: 2 } });
    expect(b).toMatchObject({
      ok: false,
      code: "CONFLICT",
      message: "Someone changed this permission at the same time. Reload and try again.",
    });
    expect(
      await putPermissionAction({ agent, tool: "payments.refund", effect: "allow", expectedVersion: 0 }),
    ).toMatchObject({ ok: false, code: "CONFLICT" });
    expect(
      await putPermissionAction({
        agent,
        tool: "payments.refund",
        effect: "allow",
        onExpire: "later",
        expectedVersion: 2,
      }),
    ).toMatchObject({ ok: false, code: "INVALID_INPUT", fieldErrors: { onExpire: expect.any(Array) } });
    expect((await getRuntime().permissions.list(agent))[0]).toMatchObject({ effect: "deny", version: 2 });
    // One audit row per saved version, written with it; the refused puts wrote none.
    if (!first.ok) throw new Error(first.message);
    const audit = await findAuditLog(db, { action: "permissions.put", target: first.data.id });
    expect(
      audit
        .map((row) => row.data as { version: number; effect: string })
        .map(({ version, effect }) => [version, effect]),
    ).toEqual([
      [2, "deny"],
      [1, "allow"],
    ]);
  });

  it("a permission revoked while a run waits for approval: the approval is refused at the moment of acting", async () => {
    session = admin();
    for (const agent of demoAgents)
      for (const p of agent.defaultPermissions) await getRuntime().permissions.put(p, { by: "test" });
    const order = await createSandboxOrder(db, { amountCents: 24_000 });
    const { run } = await getRuntime().startRun({
      agent: "refund-agent",
      input: { orderId: order.id },
      startedBy: "support@test",
    });
    await getRuntime().createWorker().drain();
    const [packet] = await getRuntime().store.findPackets({ runId: run.id, status: ["PENDING"] });
    expect(packet.tool).toBe("payments.refund");

    const rule = (await getRuntime().permissions.list("refund-agent")).find(
      (r) => r.agent === "refund-agent" && r.tool === "payments.refund" && r.step === "*",
    )!;
    expect(
      await putPermissionAction({
        agent: "refund-agent",
        tool: "payments.refund",
        effect: "deny",
        expectedVersion: rule.version,
      }),
    ).toMatchObject({ ok: true });

    session = reviewer();
    await db.user.create({ data: { id: session.id, email: session.email, role: session.role } }); // a decider is a stored person
    expect(await decidePacketAction({ packetId: packet.id, decision: "approve" })).toMatchObject({
      ok: true,
      data: { status: "APPROVED" },
    });
    await getRuntime().createWorker().drain();
    const events = await getRuntime().store.listEvents(run.id);
    expect(events.find((e) => e.type === "gate.refused")?.data).toMatchObject({
      packetId: packet.id,
      why: expect.stringContaining("permission was revoked while the run waited"),
    });
    const ledger = await db.sandboxLedgerEntry.count({ where: { runId: run.id, system: "payments" } });
    expect(ledger).toBe(0);
    // put the demo grant back for the other tests
    session = admin();
    const denied = (await getRuntime().permissions.list("refund-agent")).find((r) => r.id === rule.id)!;
    await putPermissionAction({
      agent: "refund-agent",
      tool: "payments.refund",
      effect: "allow",
      conditions: rule.conditions,
      queue: rule.queue,
      expectedVersion: denied.version,
    });
  });
});
