import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, type Db } from "../lib/db";
import { findApiTokens, revokeApiToken } from "../lib/api/tokens";
import { ensureBootstrapToken } from "../lib/commands/ensure-bootstrap-token";
import { providers, uid } from "./support/runtime";
import { startRouteServer } from "./support/route-server";
import { createPersonWithToken } from "./support/tokens";

// The HTTP API over real HTTP: bearer tokens with scopes, JSON errors with a code, and no 5xx for any
// malformed request. (Journeys of the built-in agents through the API live in tests/agents.)

describe.each(providers())("HTTP API [%s]", (_provider, url) => {
  let server: Awaited<ReturnType<typeof startRouteServer>>;
  let db: Db;
  const tokens: Record<string, string> = {};

  beforeAll(async () => {
    process.env.DATABASE_URL = url; // the route handlers' composition root follows it
    db = createDb(url);
    tokens.reader = (await createPersonWithToken(db, { role: "reviewer", scopes: ["runs:read"] })).token;
    tokens.writer = (await createPersonWithToken(db, { role: "operator", scopes: ["runs:write", "runs:read"] })).token;
    tokens.reviewer = (await createPersonWithToken(db, { role: "reviewer", scopes: ["packets:decide"] })).token;
    tokens.signals = (await createPersonWithToken(db, { role: "operator", scopes: ["signals:write"] })).token;
    server = await startRouteServer();
  });
  afterAll(async () => {
    await server.close();
    await db.$disconnect();
  });

  const call = async (method: string, path: string, opts: { token?: string; body?: unknown; raw?: string } = {}) => {
    const res = await fetch(server.url + path, {
      method,
      headers: { "content-type": "application/json", ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}) },
      body: opts.raw ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body)),
    });
    return { status: res.status, json: await res.json() };
  };

  it("health needs no token", async () => {
    expect(await call("GET", "/api/health")).toMatchObject({ status: 200, json: { ok: true } });
  });

  it("refuses a missing, unknown or revoked token with 401, and a token without the scope with 403", async () => {
    expect(await call("GET", "/api/runs")).toMatchObject({ status: 401, json: { error: { code: "UNAUTHENTICATED" } } });
    expect((await call("GET", "/api/runs", { token: "tth_nope" })).status).toBe(401);
    expect(await call("POST", "/api/runs", { token: tokens.reader, body: { agent: "x", input: {} } })).toMatchObject({
      status: 403,
      json: { error: { code: "FORBIDDEN" } },
    });
    expect(
      (await call("POST", "/api/packets/pkt_x/decision", { token: tokens.writer, body: { decision: "approve" } }))
        .status,
    ).toBe(403);
    const revoked = await createPersonWithToken(db, { role: "admin", scopes: ["admin"] });
    expect((await call("GET", "/api/runs", { token: revoked.token })).status).toBe(200);
    await revokeApiToken(db, revoked.id);
    expect((await call("GET", "/api/runs", { token: revoked.token })).status).toBe(401);
  });

  it("stores tokens hashed, and the bootstrap token is an admin token with exactly that value", async () => {
    const value = `boot-${uid()}-0123456789`;
    expect(await ensureBootstrapToken({ db }, value)).toBe("created");
    expect(await ensureBootstrapToken({ db }, value)).toBe("exists"); // idempotent
    expect(await db.apiToken.count({ where: { tokenHash: value } })).toBe(0);
    expect((await call("GET", "/api/runs", { token: value })).status).toBe(200);
  });

  it("a revoked bootstrap token is not revived by the next start", async () => {
    const value = `${uid("boot")}-0123456789`; // its prefix (8 characters) names it in the list
    await ensureBootstrapToken({ db }, value);
    const [token] = (await findApiTokens(db)).filter(
      (t) => t.name === "bootstrap" && t.revokedAt === null && t.prefix === value.slice(0, 8),
    );
    await revokeApiToken(db, token.id);
    expect(await ensureBootstrapToken({ db }, value)).toBe("revoked");
    expect((await call("GET", "/api/runs", { token: value })).status).toBe(401);
  });

  it("answers malformed requests with a 4xx and a clear message, never a 5xx", async () => {
    const malformed: Array<[string, string, { token: string; body?: unknown; raw?: string }, number]> = [
      ["POST", "/api/runs", { token: tokens.writer, raw: "{not json" }, 400],
      ["POST", "/api/runs", { token: tokens.writer, body: { input: {} } }, 400],
      ["POST", "/api/runs", { token: tokens.writer, body: [] }, 400],
      ["POST", "/api/runs", { token: tokens.writer, body: { agent: "no-such-agent", input: {} } }, 404],
      ["GET", "/api/runs?status=DANCING", { token: tokens.reader }, 400],
      ["GET", "/api/runs?limit=-3", { token: tokens.reader }, 400],
      ["GET", "/api/runs/run_nope", { token: tokens.reader }, 404],
      ["GET", "/api/runs/run_nope/events?after=abc", { token: tokens.reader }, 400],
      ["GET", "/api/runs/run_nope/events", { token: tokens.reader }, 404],
      ["POST", "/api/runs/run_nope/cancel", { token: tokens.writer, body: {} }, 404],
      ["POST", "/api/runs/run_nope/signals", { token: tokens.signals, body: { type: "x" } }, 400],
      ["POST", "/api/runs/run_nope/signals", { token: tokens.signals, body: { type: "x", dedupKey: "k" } }, 404],
      ["POST", "/api/packets/pkt_nope/decision", { token: tokens.reviewer, body: { decision: "maybe" } }, 400],
      ["POST", "/api/packets/pkt_nope/decision", { token: tokens.reviewer, body: { decision: "approve" } }, 404],
      ["GET", "/api/packets?status=whatever", { token: tokens.reader }, 400],
    ];
    for (const [method, path, opts, status] of malformed) {
      const res = await call(method, path, opts);
      expect(res.status, `${method} ${path} ${opts.raw ?? JSON.stringify(opts.body ?? "")}`).toBe(status);
      expect(res.json.error).toEqual(
        expect.objectContaining({ code: expect.any(String), message: expect.any(String) }),
      );
    }
  });

  it("lists runs and packets for a reader", async () => {
    expect(await call("GET", "/api/runs?limit=5", { token: tokens.reader })).toMatchObject({
      status: 200,
      json: { runs: expect.any(Array) },
    });
    expect(await call("GET", "/api/packets?status=pending", { token: tokens.reader })).toMatchObject({
      status: 200,
      json: { packets: expect.any(Array) },
    });
  });
});
