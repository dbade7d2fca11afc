import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../lib/config";
import { queuedRunCapFromEnv } from "../lib/api/queued-runs";
import { createApiToken } from "../lib/api/tokens";
import { rateLimitFromEnv } from "../lib/api/rate-limit";
import { createDb, type Db } from "../lib/db";
import { providers, uid } from "./support/runtime";
import { startRouteServer } from "./support/route-server";
import { createPersonWithToken } from "./support/tokens";

// Rate limits per token and per person (429 with Retry-After), and the cap on an agent's queued runs.

describe("the rate limit settings", () => {
  it("reads its settings strictly", () => {
    expect(rateLimitFromEnv(loadConfig({}))).toEqual({ perSecond: 20, burst: 200 });
    expect(rateLimitFromEnv(loadConfig({ TETHER_RATE_LIMIT: "5,50" }))).toEqual({ perSecond: 5, burst: 50 });
    expect(rateLimitFromEnv(loadConfig({ TETHER_RATE_LIMIT: "off" }))).toBeNull();
    for (const bad of ["5", "0,10", "a,b", "5,0", "-1,3"])
      expect(() => rateLimitFromEnv(loadConfig({ TETHER_RATE_LIMIT: bad }))).toThrow(/TETHER_RATE_LIMIT/);
    expect(queuedRunCapFromEnv(loadConfig({}))).toBe(10_000);
    expect(queuedRunCapFromEnv(loadConfig({ TETHER_MAX_QUEUED_RUNS: "off" }))).toBeNull();
    for (const bad of ["0", "x", "1.5"])
      expect(() => queuedRunCapFromEnv(loadConfig({ TETHER_MAX_QUEUED_RUNS: bad }))).toThrow(/TETHER_MAX_QUEUED_RUNS/);
  });
});

describe.each(providers())("rate limits over HTTP [%s]", (_provider, url) => {
  let server: Awaited<ReturnType<typeof startRouteServer>>;
  let db: Db;

  beforeAll(async () => {
    process.env.DATABASE_URL = url; // the route handlers' composition root follows it
    db = createDb(url);
    server = await startRouteServer();
  });
  afterEach(() => {
    delete process.env.TETHER_RATE_LIMIT;
    delete process.env.TETHER_MAX_QUEUED_RUNS;
  });
  afterAll(async () => {
    await server.close();
    await db.$disconnect();
  });

  const call = async (method: string, path: string, token: string, body?: unknown) => {
    const res = await fetch(server.url + path, {
      method,
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, retryAfter: res.headers.get("retry-after"), json: await res.json() };
  };

  it("answers 429 with Retry-After past a token's burst, per person: a second token of the same person shares the limit", async () => {
    process.env.TETHER_RATE_LIMIT = "0.5,3";
    const person = await createPersonWithToken(db, { role: "operator", scopes: ["runs:read"] });
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await call("GET", "/api/runs?limit=1", person.token)).status);
    expect(statuses).toEqual([200, 200, 200]);
    const limited = await call("GET", "/api/runs?limit=1", person.token);
    expect(limited).toMatchObject({
      status: 429,
      json: { error: { code: "RATE_LIMITED", message: expect.stringMatching(/try again in \d+ s/) } },
    });
    expect(Number(limited.retryAfter)).toBeGreaterThanOrEqual(1);
    const second = await createApiToken(
      db,
      { name: uid("second"), scopes: ["runs:read"] },
      { createdBy: person.email },
    );
    expect((await call("GET", "/api/runs?limit=1", second.token)).status).toBe(429); // the person's bucket is empty
    const other = await createPersonWithToken(db, { role: "operator", scopes: ["runs:read"] });
    expect((await call("GET", "/api/runs?limit=1", other.token)).status).toBe(200); // another person is not slowed
  });

  it("caps an agent's queued runs: 429 past the cap, a known idempotency key still answers with its run", async () => {
    process.env.TETHER_MAX_QUEUED_RUNS = "2";
    const operator = await createPersonWithToken(db, { role: "operator", scopes: ["runs:write", "runs:read"] });
    const agent = uid("capped");
    await db.run.createMany({
      data: [1, 2].map((n) => ({
        id: `run_${agent}_${n}`,
        agentSlug: agent,
        agentVersion: "1",
        status: "QUEUED",
        input: "{}",
        state: "{}",
        idempotencyKey: `${agent}-${n}`,
      })),
    });
    const refused = await call("POST", "/api/runs", operator.token, { agent, input: {} });
    expect(refused).toMatchObject({
      status: 429,
      retryAfter: "5",
      json: { error: { code: "RATE_LIMITED", message: expect.stringContaining("2 runs waiting") } },
    });
    expect(await db.run.count({ where: { agentSlug: agent } })).toBe(2);
    expect(
      (await call("POST", "/api/runs", operator.token, { agent, input: {}, idempotencyKey: `${agent}-1` })).status,
    ).not.toBe(429);
    await db.run.deleteMany({ where: { agentSlug: agent } });
  });
});
