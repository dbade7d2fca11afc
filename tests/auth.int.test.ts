import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { defineAction, setActionEnvironment } from "../lib/actions/define-action";
import { decidePacketAction } from "../lib/actions/packets";
import { demoAgents } from "../lib/agents";
import { findAuditLog, writeAudit } from "../lib/audit/audit-log";
import { DEMO_PASSWORD, DEMO_USERS } from "../lib/auth/mode";
import { hashPassword, verifyPassword } from "../lib/auth/password";
import type { SessionUser } from "../lib/auth/rbac";
import { authorizeCredentials, checkCredentials, findDemoAccounts, getActiveUser } from "../lib/auth/users";
import { createUser } from "../lib/commands/create-user";
import { resolveOidcUser } from "../lib/commands/resolve-oidc-user";
import { seedDemoUsers } from "../lib/commands/seed-demo-users";
import { createDb, type Db } from "../lib/db";
import { AppError } from "../lib/runtime/errors";
import { getRuntime } from "../lib/runtime.server";
import { startSandboxServer, type SandboxServer } from "../lib/sandbox/http-server";
import { seedSandbox } from "../lib/sandbox/seed";
import { providers, uid } from "./support/runtime";
import { createSandboxOrder } from "./support/sandbox-world";

// Sign-in and roles on each database: users and their passwords, the Credentials authorize function,
// OIDC users matched by email, the audit log, and defineAction (the server actions' one wrapper) with
// an injected session — plus decidePacketAction against the real runtime and sandbox world.

const email = (name = "user") => `${uid(name)}@test.example`.toLowerCase();
const strong = "a sturdy passphrase 42";

describe.each(providers())("sign-in and roles [%s]", (_provider, url) => {
  let db: Db;
  beforeAll(() => {
    db = createDb(url);
  });
  afterAll(async () => {
    await db.$disconnect();
  });

  describe("users and passwords", () => {
    it("creates a user with a scrypt hash (never the password) and an audit row, in one go", async () => {
      const address = email("ada");
      const user = await createUser(
        { db },
        { email: `  ${address.toUpperCase()} `, name: "Ada", role: "operator", password: strong },
        { by: "admin@test" },
      );
      expect(user).toEqual({ id: expect.stringMatching(/^usr_/), email: address, name: "Ada", role: "operator" });
      const row = await db.user.findUniqueOrThrow({ where: { email: address } });
      expect(row.passwordHash).toMatch(/^scrypt\$32768\$8\$1\$/);
      expect(row.passwordHash).not.toContain(strong);
      expect(await verifyPassword(strong, row.passwordHash!)).toBe(true);
      expect(await findAuditLog(db, { target: address })).toEqual([
        expect.objectContaining({
          actor: "admin@test",
          action: "users.create",
          data: { role: "operator", hasPassword: true },
        }),
      ]);
    });

    it("refuses a weak password, an invalid role and an email that already has an account", async () => {
      await expect(
        createUser({ db }, { email: email(), role: "admin", password: "short" }, { by: "t" }),
      ).rejects.toMatchObject({
        code: "INVALID_INPUT",
        fieldErrors: { password: [expect.stringContaining("12 characters")] },
      });
      await expect(
        createUser({ db }, { email: email(), role: "admin", password: "passwordpassword" }, { by: "t" }),
      ).rejects.toMatchObject({ code: "INVALID_INPUT" });
      await expect(
        createUser({ db }, { email: email(), role: "superuser" as "admin", password: strong }, { by: "t" }),
      ).rejects.toMatchObject({ code: "INVALID_INPUT", fieldErrors: { role: expect.any(Array) } });
      const address = email();
      await createUser({ db }, { email: address, role: "reviewer", password: strong }, { by: "t" });
      await expect(
        createUser({ db }, { email: address.toUpperCase(), role: "admin", password: strong }, { by: "t" }),
      ).rejects.toMatchObject({ code: "CONFLICT" });
      expect(await db.user.count({ where: { email: address } })).toBe(1);
    });

    it("verifies hashes in constant form: salted, and false for wrong or malformed ones", async () => {
      const [a, b] = await Promise.all([hashPassword(strong), hashPassword(strong)]);
      expect(a).not.toBe(b);
      expect(await verifyPassword(strong, a)).toBe(true);
      expect(await verifyPassword(`${strong}!`, a)).toBe(false);
      for (const bad of ["", "plain", "scrypt$x$8$1$abc$def", `bcrypt$${a.slice(7)}`, "scrypt$16384$8$1$c2FsdA$"])
        expect(await verifyPassword(strong, bad)).toBe(false);
    });
  });

  describe("the credentials authorize function", () => {
    let address: string;
    beforeAll(async () => {
      address = email("cred");
      await createUser({ db }, { email: address, name: "Cred", role: "reviewer", password: strong }, { by: "t" });
    });

    it("returns the user (id, email, name, role) for the right password, whatever the email's case", async () => {
      expect(await authorizeCredentials(db, { email: address.toUpperCase(), password: strong })).toEqual({
        id: expect.any(String),
        email: address,
        name: "Cred",
        role: "reviewer",
      });
    });

    it("returns null for a wrong password, an unknown user, a disabled user and malformed input", async () => {
      expect(await authorizeCredentials(db, { email: address, password: "wrong password here" })).toBeNull();
      expect(await authorizeCredentials(db, { email: email("nobody"), password: strong })).toBeNull();
      expect(await authorizeCredentials(db, { email: address })).toBeNull();
      expect(await authorizeCredentials(db, null)).toBeNull();
      const disabled = email("disabled");
      const user = await createUser({ db }, { email: disabled, role: "admin", password: strong }, { by: "t" });
      await db.user.update({ where: { id: user.id }, data: { disabledAt: new Date() } });
      expect(await checkCredentials(db, { email: disabled, password: strong })).toEqual({
        ok: false,
        reason: "disabled",
      });
      expect(await getActiveUser(db, user.id)).toBeNull(); // an existing session stops working too
    });

    it("a user without a password (OIDC only) cannot sign in with one", async () => {
      const address = email("sso");
      await createUser({ db }, { email: address, role: "reviewer" }, { by: "t" });
      expect(await checkCredentials(db, { email: address, password: strong })).toEqual({
        ok: false,
        reason: "no-password",
      });
    });

    it("demo accounts: seeded idempotently; their well-known password works only in demo mode", async () => {
      await seedDemoUsers({ db });
      await seedDemoUsers({ db });
      expect(await db.user.count({ where: { email: { in: DEMO_USERS.map((u) => u.email) } } })).toBe(3);
      expect((await findDemoAccounts(db)).map((a) => `${a.email}:${a.role}`)).toEqual([
        "reviewer@example.com:reviewer",
        "operator@example.com:operator",
        "admin@example.com:admin",
      ]);
      expect(
        await authorizeCredentials(db, { email: "admin@example.com", password: DEMO_PASSWORD }, { demoMode: true }),
      ).toMatchObject({ role: "admin" });
      expect(
        await checkCredentials(db, { email: "admin@example.com", password: DEMO_PASSWORD }, { demoMode: false }),
      ).toEqual({ ok: false, reason: "demo-account-outside-demo" });
    });
  });

  describe("OIDC users", () => {
    it("take the role of the User row with their email", async () => {
      const address = email("oidc-op");
      await createUser({ db }, { email: address, role: "operator" }, { by: "t" });
      expect(
        await resolveOidcUser(db, { email: address.toUpperCase(), emailVerified: true }, { defaultRole: "reviewer" }),
      ).toMatchObject({ email: address, role: "operator" });
    });

    it("without a row: created with the default role, or refused when it is 'none'", async () => {
      const address = email("oidc-new");
      expect(
        await resolveOidcUser(db, { email: address, name: "New Person", emailVerified: true }, { defaultRole: "none" }),
      ).toBeNull();
      expect(await db.user.count({ where: { email: address } })).toBe(0);
      const user = await resolveOidcUser(
        db,
        { email: address, name: "New Person", emailVerified: true },
        { defaultRole: "reviewer", issuer: "https://idp.test" },
      );
      expect(user).toMatchObject({ email: address, name: "New Person", role: "reviewer" });
      expect(await findAuditLog(db, { target: address })).toEqual([
        expect.objectContaining({ actor: "oidc:https://idp.test", action: "users.provision" }),
      ]);
    });

    it("refuses no email, an email not said to be verified and a disabled user", async () => {
      expect(await resolveOidcUser(db, { email: null, emailVerified: true }, { defaultRole: "reviewer" })).toBeNull();
      expect(await resolveOidcUser(db, { email: email(), emailVerified: false }, { defaultRole: "admin" })).toBeNull();
      const known = email("oidc-known");
      await createUser({ db }, { email: known, role: "operator" }, { by: "t" });
      expect(await resolveOidcUser(db, { email: known }, { defaultRole: "admin" })).toBeNull(); // no email_verified claim
      expect(await resolveOidcUser(db, { email: known, emailVerified: true }, { defaultRole: "admin" })).toMatchObject({
        role: "operator",
      });
      const address = email("oidc-off");
      const user = await createUser({ db }, { email: address, role: "admin" }, { by: "t" });
      await db.user.update({ where: { id: user.id }, data: { disabledAt: new Date() } });
      expect(
        await resolveOidcUser(db, { email: address, emailVerified: true }, { defaultRole: "reviewer" }),
      ).toBeNull();
    });
  });

  describe("defineAction", () => {
    const reviewer: SessionUser = { id: "usr_r", email: "reviewer@test", name: null, role: "reviewer" };
    const admin: SessionUser = { id: "usr_a", email: "admin@test", name: null, role: "admin" };
    let session: SessionUser | null = null;
    const revalidated: string[] = [];
    const logError = vi.fn();
    beforeAll(() =>
      setActionEnvironment({
        getUser: async () => session,
        getDb: () => db,
        revalidatePath: (p) => void revalidated.push(p),
        logError,
      }),
    );
    afterAll(() => setActionEnvironment(null));
    afterEach(() => {
      session = null;
      revalidated.length = 0;
      logError.mockClear();
    });

    // The handler stands for a command: it writes its own row, in its transaction, as commands do.
    const handler = vi.fn(async (input: { name: string }, ctx: { user: SessionUser; db: Db }) => {
      await ctx.db.$transaction((tx) =>
        writeAudit(tx, { actor: ctx.user.email, action: "test.greet", target: input.name, data: { name: input.name } }),
      );
      return { greeting: `hello ${input.name}` };
    });
    const adminAction = defineAction(
      {
        schema: z.object({ name: z.string().min(2, "Too short.") }),
        scope: "admin:manage",
        audit: { action: "test.greet", byHandler: true },
      },
      handler,
    );

    it("without a session: UNAUTHENTICATED, and the handler never runs", async () => {
      expect(await adminAction({ name: "x" })).toEqual({
        ok: false,
        code: "UNAUTHENTICATED",
        message: "Your session has ended. Sign in again.",
      });
      expect(handler).not.toHaveBeenCalled();
    });

    it("a reviewer calling an admin action: FORBIDDEN, and the refusal is audited", async () => {
      session = { ...reviewer, email: email("denied") };
      expect(await adminAction({ name: "Ada" })).toMatchObject({
        ok: false,
        code: "FORBIDDEN",
        message: expect.stringContaining("reviewer"),
      });
      expect(handler).not.toHaveBeenCalled();
      expect(await findAuditLog(db, { actor: session.email })).toEqual([
        expect.objectContaining({ action: "test.greet.denied", data: { scope: "admin:manage", role: "reviewer" } }),
      ]);
    });

    it("invalid input: INVALID_INPUT with field errors", async () => {
      session = admin;
      expect(await adminAction({ name: "x" })).toEqual({
        ok: false,
        code: "INVALID_INPUT",
        message: "Check the highlighted fields.",
        fieldErrors: { name: ["Too short."] },
      });
      expect(await adminAction({} as { name: string })).toMatchObject({
        ok: false,
        code: "INVALID_INPUT",
        fieldErrors: { name: expect.any(Array) },
      });
      expect(handler).not.toHaveBeenCalled();
    });

    it("success: the data, and only the command's audit row (defineAction writes none after the commit)", async () => {
      session = { ...admin, email: email("admin") };
      const name = uid("Grace");
      expect(await adminAction({ name })).toEqual({ ok: true, data: { greeting: `hello ${name}` } });
      expect(await findAuditLog(db, { actor: session.email })).toEqual([
        expect.objectContaining({ action: "test.greet", target: name, data: { name } }),
      ]);
    });

    it("FormData input is parsed like an object", async () => {
      session = admin;
      const form = new FormData();
      form.set("name", "Form");
      form.set("$ACTION_ID_abc", "");
      expect(await adminAction(form as unknown as { name: string })).toEqual({
        ok: true,
        data: { greeting: "hello Form" },
      });
    });

    it("an AppError becomes its code and user message; anything else INTERNAL, without its text", async () => {
      session = admin;
      const conflict = defineAction({ schema: z.object({}), scope: "runs:read", audit: false }, async () => {
        throw new AppError("CONFLICT", {
          message: "row version 3 != 4 in table X",
          userMessage: "Someone else changed this first.",
        });
      });
      expect(await conflict({})).toEqual({ ok: false, code: "CONFLICT", message: "Someone else changed this first." });
      const crash = defineAction({ schema: z.object({}), scope: "runs:read", audit: false }, async () => {
        throw new Error("ECONNREFUSED 10.0.0.5:5432 password=hunter2");
      });
      const result = await crash({});
      expect(result).toEqual({ ok: false, code: "INTERNAL", message: expect.any(String) });
      expect(JSON.stringify(result)).not.toContain("hunter2");
      expect(logError).toHaveBeenCalledOnce();
    });

    it("writeAudit works inside a transaction (for handlers that audit with their own change)", async () => {
      const target = uid("tx");
      await db.$transaction(async (tx) => writeAudit(tx, { actor: "t", action: "test.tx", target, data: { a: 1 } }));
      expect(await findAuditLog(db, { target })).toEqual([
        expect.objectContaining({ action: "test.tx", data: { a: 1 } }),
      ]);
    });
  });

  describe("decidePacketAction", () => {
    let sandbox: SandboxServer;
    let session: SessionUser | null = null;
    const revalidated: string[] = [];
    beforeAll(async () => {
      process.env.DATABASE_URL = url; // the runtime's composition root follows it
      sandbox = await startSandboxServer(db);
      process.env.TETHER_SANDBOX_URL = sandbox.url;
      await seedSandbox(db);
      for (const agent of demoAgents)
        for (const p of agent.defaultPermissions) await getRuntime().permissions.put(p, { by: "test" });
      setActionEnvironment({
        getUser: async () => session,
        getDb: () => db,
        revalidatePath: (p) => void revalidated.push(p),
      });
    });
    afterAll(async () => {
      setActionEnvironment(null);
      await sandbox.close();
    });

    /** A signed-in person is a stored user (the engine asks who may decide a packet). */
    async function person(user: Pick<SessionUser, "email" | "role">): Promise<SessionUser> {
      const row = await db.user.create({ data: { id: uid("usr"), email: user.email, role: user.role } });
      return { id: row.id, email: row.email, name: null, role: user.role };
    }

    /** A refund over the limit: the run waits on a decision packet. */
    async function pendingRefundPacket() {
      const order = await createSandboxOrder(db, { amountCents: 24_000 });
      const { run } = await getRuntime().startRun({
        agent: "refund-agent",
        input: { orderId: order.id },
        startedBy: "support@test",
      });
      await getRuntime().createWorker().drain();
      const [packet] = await getRuntime().store.findPackets({ runId: run.id, status: ["PENDING"] });
      expect(packet).toBeDefined();
      return packet;
    }

    it("a reviewer rejects a packet: decided as them, pages revalidated, audited", async () => {
      const packet = await pendingRefundPacket();
      session = await person({ email: email("reviewer"), role: "reviewer" });
      const result = await decidePacketAction({
        packetId: packet.id,
        decision: "reject",
        reason: "Ask for a photo of the damage first.",
      });
      expect(result).toEqual({ ok: true, data: { packetId: packet.id, runId: packet.runId, status: "REJECTED" } });
      expect((await getRuntime().store.getPacket(packet.id, null))?.decidedBy).toBe(session.email);
      expect(revalidated).toEqual(["/inbox", `/runs/${packet.runId}`]);
      expect(await findAuditLog(db, { target: packet.id })).toEqual([
        expect.objectContaining({
          actor: session.email,
          action: "packets.decide",
          data: {
            decision: "reject",
            reason: "Ask for a photo of the damage first.",
            runId: packet.runId,
            tool: packet.tool,
          },
        }),
      ]);

      // the packet is decided: a second decision gets the runtime's clear conflict
      expect(await decidePacketAction({ packetId: packet.id, decision: "approve" })).toMatchObject({
        ok: false,
        code: "PACKET_ALREADY_DECIDED",
        message: expect.stringContaining("already decided"),
      });
    });

    it("refuses the unauthenticated, and incomplete decisions with field errors", async () => {
      const packet = await pendingRefundPacket();
      session = null;
      expect(await decidePacketAction({ packetId: packet.id, decision: "approve" })).toMatchObject({
        ok: false,
        code: "UNAUTHENTICATED",
      });
      session = { id: "usr_y", email: email("reviewer"), name: null, role: "reviewer" };
      expect(await decidePacketAction({ packetId: packet.id, decision: "reject", reason: " " })).toMatchObject({
        ok: false,
        code: "INVALID_INPUT",
        fieldErrors: { reason: [expect.any(String)] },
      });
      expect(await decidePacketAction({ packetId: "", decision: "approve" })).toMatchObject({
        ok: false,
        code: "INVALID_INPUT",
        fieldErrors: { packetId: ["Which packet?"] },
      });
      expect(await decidePacketAction({ packetId: "pkt_does_not_exist", decision: "approve" })).toMatchObject({
        ok: false,
        code: "NOT_FOUND",
      });
      expect((await getRuntime().store.getPacket(packet.id, null))?.status).toBe("PENDING");
    });

    it("an approval goes through, and the run continues", async () => {
      const packet = await pendingRefundPacket();
      session = await person({ email: email("operator"), role: "operator" });
      expect(await decidePacketAction({ packetId: packet.id, decision: "approve" })).toMatchObject({
        ok: true,
        data: { status: "APPROVED" },
      });
      await getRuntime().createWorker().drain();
      expect((await getRuntime().getRun(packet.runId)).status).toBe("COMPLETED");
    });
  });
});
