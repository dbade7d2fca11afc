import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authenticateApiToken, createApiToken } from "../lib/api/tokens";
import { createDb, type Db } from "../lib/db";
import { expectError, providers, uid } from "./support/runtime";
import { startRouteServer } from "./support/route-server";
import { createPersonWithToken } from "./support/tokens";

// One identity model: an API token belongs to a person and acts as them. Its principal is their email
// (two tokens of one person are one approver), their role bounds its scopes (also after a demotion),
// a disabled person's tokens, a revoked token and an expired one are refused; admins create, list and
// revoke tokens over the API, each change audited.

describe.each(providers())("API tokens belong to people [%s]", (_provider, url) => {
  let server: Awaited<ReturnType<typeof startRouteServer>>;
  let db: Db;

  beforeAll(async () => {
    process.env.DATABASE_URL = url; // the route handlers' composition root follows it
    db = createDb(url);
    server = await startRouteServer();
  });
  afterAll(async () => {
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

  it("acts as its owner: two tokens of one person are one principal, the person's email", async () => {
    const first = await createPersonWithToken(db, { role: "reviewer", scopes: ["packets:decide"] });
    const second = await createApiToken(
      db,
      { name: uid("second"), scopes: ["packets:decide", "runs:read"] },
      { createdBy: first.email },
    );
    expect(await authenticateApiToken(db, first.token)).toMatchObject({ principal: first.email });
    expect(await authenticateApiToken(db, second.token)).toMatchObject({ principal: first.email });
  });

  it("is refused once its owner is disabled, once it expired, and never holds more than the owner's role", async () => {
    const admin = await createPersonWithToken(db, { role: "admin", scopes: ["admin"] });
    expect((await call("GET", "/api/tokens", admin.token)).status).toBe(200);
    // Demoted to operator: the admin token keeps what an operator may do, and no more.
    await db.user.update({ where: { email: admin.email }, data: { role: "operator" } });
    expect((await call("GET", "/api/tokens", admin.token)).status).toBe(403);
    expect((await call("GET", "/api/runs", admin.token)).status).toBe(200);
    await db.user.update({ where: { email: admin.email }, data: { disabledAt: new Date() } });
    expect(await call("GET", "/api/runs", admin.token)).toMatchObject({
      status: 401,
      json: { error: { code: "UNAUTHENTICATED" } },
    });

    const expiring = await createPersonWithToken(db, { role: "operator", scopes: ["runs:read"], expiresInDays: 1 });
    expect(expiring.expiresAt).toBeInstanceOf(Date);
    expect(await authenticateApiToken(db, expiring.token)).not.toBeNull();
    expect(await authenticateApiToken(db, expiring.token, new Date(expiring.expiresAt!.getTime() + 1))).toBeNull();
    await db.apiToken.update({ where: { id: expiring.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expect((await call("GET", "/api/runs", expiring.token)).status).toBe(401);

    const reviewer = await createPersonWithToken(db, { role: "reviewer", scopes: ["runs:read"] });
    const beyond = await expectError(
      createApiToken(db, { name: "too much", scopes: ["runs:write"] }, { createdBy: reviewer.email }),
      "INVALID_INPUT",
    );
    expect(beyond.fieldErrors).toHaveProperty("scopes");
    const nobody = await expectError(
      createApiToken(db, { name: "orphan", scopes: ["runs:read"] }, { createdBy: "setup" }),
      "INVALID_INPUT",
    );
    expect(nobody.fieldErrors).toHaveProperty("user");
  });

  it("POST, GET and DELETE /api/tokens: an admin makes a token for a person, lists it without its value, revokes it; each audited", async () => {
    const admin = await createPersonWithToken(db, { role: "admin", scopes: ["admin"] });
    const operator = await createPersonWithToken(db, { role: "operator", scopes: ["runs:read"] });
    expect((await call("POST", "/api/tokens", operator.token, { name: "x", scopes: ["runs:read"] })).status).toBe(403);
    expect((await call("POST", "/api/tokens", admin.token, { name: "", scopes: [] })).status).toBe(400);
    expect(
      (await call("POST", "/api/tokens", admin.token, { name: "ci", scopes: ["admin"], user: operator.email })).status,
    ).toBe(400);

    const created = await call("POST", "/api/tokens", admin.token, {
      name: "nightly",
      scopes: ["runs:write", "runs:read"],
      user: operator.email,
      expiresInDays: 30,
    });
    expect(created).toMatchObject({
      status: 201,
      json: {
        token: expect.stringMatching(/^tth_/),
        name: "nightly",
        user: operator.email,
        scopes: ["runs:write", "runs:read"],
        expiresAt: expect.any(String),
      },
    });
    const started = await call("POST", "/api/runs", created.json.token, { agent: "no-such-agent", input: {} });
    expect(started.status).toBe(404); // authenticated and authorized: the agent is what is missing

    const listed = await call("GET", "/api/tokens", admin.token);
    const row = listed.json.tokens.find((t: { id: string }) => t.id === created.json.id);
    expect(row).toMatchObject({ name: "nightly", user: operator.email, createdBy: admin.email, revokedAt: null });
    expect(JSON.stringify(listed.json)).not.toContain(created.json.token);

    expect(await call("DELETE", `/api/tokens/${created.json.id}`, admin.token)).toMatchObject({
      status: 200,
      json: { revoked: created.json.id },
    });
    expect((await call("GET", "/api/runs", created.json.token)).status).toBe(401);
    expect((await call("DELETE", `/api/tokens/${created.json.id}`, admin.token)).status).toBe(404);
    const audit = await db.auditLog.findMany({
      where: { target: created.json.id },
      orderBy: { at: "asc" },
      select: { actor: true, action: true },
    });
    expect(audit).toEqual([
      { actor: admin.email, action: "tokens.create" },
      { actor: admin.email, action: "tokens.revoke" },
    ]);
  });
});
