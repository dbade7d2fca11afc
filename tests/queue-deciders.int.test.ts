import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { refundAgent } from "../lib/agents/refund-agent";
import { createDb, type Db } from "../lib/db";
import { whyNotDecider } from "../lib/inbox/queue-deciders";
import { getRuntime } from "../lib/runtime.server";
import { seedSandbox } from "../lib/sandbox/seed";
import { startRouteServer } from "./support/route-server";
import { providers, uid } from "./support/runtime";
import { createSandboxOrder } from "./support/sandbox-world";
import { createPersonWithToken } from "./support/tokens";

// Queues name who may decide them (roles or people), through PUT /api/queues/:name (admin, audited);
// the engine refuses a decision by anyone else, over the API as in the console. An unknown outcome is
// settled only by people whose role may operate runs.

describe.each(providers())("who may decide a queue [%s]", (_provider, url) => {
  let server: Awaited<ReturnType<typeof startRouteServer>>;
  let db: Db;
  let operator: Awaited<ReturnType<typeof createPersonWithToken>>;
  let reviewer: Awaited<ReturnType<typeof createPersonWithToken>>;
  let named: Awaited<ReturnType<typeof createPersonWithToken>>;
  let admin: Awaited<ReturnType<typeof createPersonWithToken>>;
  const queue = "refunds"; // the refund agent's rule sends its approvals there

  beforeAll(async () => {
    process.env.DATABASE_URL = url;
    db = createDb(url);
    server = await startRouteServer();
    process.env.TETHER_SANDBOX_URL = `${server.url}/api/sandbox`;
    process.env.TETHER_SANDBOX = "1";
    await seedSandbox(db);
    for (const p of refundAgent.defaultPermissions) await getRuntime().permissions.put(p, { by: "test" });
    operator = await createPersonWithToken(db, {
      role: "operator",
      scopes: ["runs:write", "runs:read", "packets:decide"],
    });
    reviewer = await createPersonWithToken(db, { role: "reviewer", scopes: ["packets:decide", "runs:read"] });
    named = await createPersonWithToken(db, { role: "reviewer", scopes: ["packets:decide", "runs:read"] });
    admin = await createPersonWithToken(db, { role: "admin", scopes: ["admin"] });
  });
  afterAll(async () => {
    await db.decisionQueue.deleteMany({ where: { name: queue } });
    delete process.env.TETHER_SANDBOX;
    await server.close();
    await db.$disconnect();
  });

  const call = async (method: string, path: string, token: string | null, body?: unknown) => {
    const res = await fetch(server.url + path, {
      method,
      headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, json: await res.json() };
  };
  async function refundAwaitingApproval() {
    const order = await createSandboxOrder(db, { amountCents: 24_000 });
    const started = await call("POST", "/api/runs", operator.token, {
      agent: "refund-agent",
      input: { orderId: order.id },
    });
    expect(started.status).toBe(201);
    await getRuntime().createWorker().drain();
    const { json } = await call("GET", `/api/packets?status=pending&runId=${started.json.id}`, operator.token);
    expect(json.packets).toEqual([expect.objectContaining({ queue })]);
    return json.packets[0] as { id: string };
  }

  it("PUT /api/queues/:name: admins only, bad input refused and nothing changed, each change audited", async () => {
    expect((await call("PUT", `/api/queues/${queue}`, operator.token, { roles: ["operator"] })).status).toBe(403);
    const bad = await call("PUT", `/api/queues/${queue}`, admin.token, { roles: ["king"], people: ["not-an-email"] });
    expect(bad).toMatchObject({ status: 400, json: { error: { code: "INVALID_INPUT" } } });
    expect(await db.decisionQueue.findFirst({ where: { name: queue } })).toBeNull();
    expect((await call("PUT", "/api/queues/bad%20name", admin.token, { roles: [] })).status).toBe(400);
    // a misspelt key is an error, not an open queue
    expect(await call("PUT", `/api/queues/${queue}`, admin.token, { role: ["operator"] })).toMatchObject({
      status: 400,
      json: { error: { code: "INVALID_INPUT" } },
    });
    expect(await db.decisionQueue.findFirst({ where: { name: queue } })).toBeNull();

    const put = await call("PUT", `/api/queues/${queue}`, admin.token, {
      roles: ["operator", "operator"],
      people: [named.email.toUpperCase()],
    });
    expect(put).toMatchObject({
      status: 200,
      json: { queue: { name: queue, roles: ["operator"], people: [named.email], updatedBy: admin.email } },
    });
    expect((await call("GET", "/api/queues", admin.token)).json.queues).toContainEqual(
      expect.objectContaining({ name: queue, roles: ["operator"] }),
    );
    const audit = await db.auditLog.findFirst({
      where: { action: "queues.put", target: queue },
      orderBy: { at: "desc" },
    });
    expect(audit).toMatchObject({ actor: admin.email });
    expect(JSON.parse(audit!.data)).toEqual({ roles: ["operator"], people: [named.email] });
  });

  it("a person the queue does not name is refused and nothing changes; a named person and a named role decide", async () => {
    await call("PUT", `/api/queues/${queue}`, admin.token, { roles: ["operator"], people: [named.email] });
    const first = await refundAwaitingApproval();
    const refused = await call("POST", `/api/packets/${first.id}/decision`, reviewer.token, { decision: "approve" });
    expect(refused).toMatchObject({
      status: 403,
      json: { error: { code: "FORBIDDEN", message: expect.stringMatching(/"refunds" is decided by operators, /) } },
    });
    expect(
      (
        await call(
          "GET",
          `/api/packets?status=pending&runId=${(await db.decisionPacket.findUniqueOrThrow({ where: { id: first.id } })).runId}`,
          operator.token,
        )
      ).json.packets,
    ).toHaveLength(1);
    expect(await call("POST", `/api/packets/${first.id}/decision`, named.token, { decision: "approve" })).toMatchObject(
      { status: 200, json: { packet: { status: "APPROVED" } } },
    );

    const second = await refundAwaitingApproval();
    // The operator started this run: a self-approval is refused for that reason, not the queue's.
    expect(
      (await call("POST", `/api/packets/${second.id}/decision`, operator.token, { decision: "approve" })).json.error
        .message,
    ).toMatch(/requested this action/);
    const otherOperator = await createPersonWithToken(db, { role: "operator", scopes: ["packets:decide"] });
    expect(
      (await call("POST", `/api/packets/${second.id}/decision`, otherOperator.token, { decision: "approve" })).status,
    ).toBe(200);

    // Both lists empty: the queue is open to every decider again.
    await call("PUT", `/api/queues/${queue}`, admin.token, { roles: [], people: [] });
    const third = await refundAwaitingApproval();
    expect(
      (await call("POST", `/api/packets/${third.id}/decision`, reviewer.token, { decision: "approve" })).status,
    ).toBe(200);
  });

  it("an unknown outcome is settled by someone whose role may operate runs, whatever its queue says", async () => {
    const packet = { queue: uid("attention"), kind: "UNKNOWN_OUTCOME" as const, workspaceId: "default" };
    expect(await whyNotDecider(db, reviewer.email, packet)).toMatch(/settled by an operator or an admin/);
    expect(await whyNotDecider(db, operator.email, packet)).toBeNull();
    expect(await whyNotDecider(db, "nobody@example.com", packet)).toMatch(/not an active person/);
    await db.user.update({ where: { email: named.email }, data: { disabledAt: new Date() } });
    expect(await whyNotDecider(db, named.email, { queue, kind: "APPROVAL" as const, workspaceId: "default" })).toMatch(
      /not an active person/,
    );
  });
});
