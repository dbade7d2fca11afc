import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inject } from "vitest";
import { createDb, type Db } from "../lib/db";
import { createPostgres } from "./support/global-setup";
import { createPersonWithToken } from "./support/tokens";
import { spawnConsole, type ConsoleProcess } from "./support/spawn-console";

// Two console processes on one Postgres database, as two replicas behind a load balancer: each has its
// own memory, so only what they count in the database can hold a limit for both. A client alternating
// between them meets the rate limit once, at the configured count (not at twice it), and starts racing
// on both cannot together pass an agent's queued-runs cap. A database of its own: no other test's
// queued runs count against the cap.

const RATE = { perSecond: 0.01, burst: 5 }; // a refill of one request per 100 s: none during the test
const CAP = 3;

describe.runIf(inject("postgresUrl"))("limits across two console processes [postgres]", () => {
  let database: { url: string; drop: () => void };
  let db: Db;
  let consoles: ConsoleProcess[] = [];

  beforeAll(async () => {
    database = createPostgres(`tether_replicas_${process.pid}_${Date.now()}`)!;
    db = createDb(database.url);
    const env = {
      DATABASE_URL: database.url,
      TETHER_RATE_LIMIT: `${RATE.perSecond},${RATE.burst}`,
      TETHER_MAX_QUEUED_RUNS: String(CAP),
    };
    consoles = await Promise.all([spawnConsole(env), spawnConsole(env)]);
  });
  afterAll(async () => {
    await Promise.all(consoles.map((c) => c.close()));
    await db?.$disconnect();
    database?.drop();
  });

  const call = async (base: string, method: string, path: string, token: string, body?: unknown) => {
    const res = await fetch(base + path, {
      method,
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    await res.arrayBuffer();
    return { status: res.status, retryAfter: res.headers.get("retry-after") };
  };

  it("a client alternating between the two meets the limit once, after the burst, and on both", async () => {
    const person = await createPersonWithToken(db, { role: "operator", scopes: ["runs:read"] });
    const answers = [];
    for (let i = 0; i < RATE.burst * 2; i++)
      answers.push(await call(consoles[i % 2].url, "GET", "/api/runs?limit=1", person.token));
    const statuses = answers.map((a) => a.status);
    // Counted in each process's memory this would be ten 200s (five a process).
    expect(statuses).toEqual([...Array<number>(RATE.burst).fill(200), ...Array<number>(RATE.burst).fill(429)]);
    expect(Number(answers[RATE.burst].retryAfter)).toBeGreaterThan(1);
    const other = await createPersonWithToken(db, { role: "operator", scopes: ["runs:read"] });
    expect((await call(consoles[1].url, "GET", "/api/runs?limit=1", other.token)).status).toBe(200); // another person is not slowed
  });

  it("starts racing on both processes never pass the agent's queued-runs cap", async () => {
    // One person per start, so the rate limit is not what refuses them.
    const people = await Promise.all(
      Array.from({ length: 20 }, () => createPersonWithToken(db, { role: "operator", scopes: ["runs:write"] })),
    );
    // Both processes warm (route modules loaded, engine built), so their starts overlap in time.
    for (const c of consoles)
      expect(
        (
          await call(c.url, "POST", "/api/runs", people[0].token, {
            agent: "refund-agent",
            input: {},
            idempotencyKey: "warm-up",
          })
        ).status,
      ).toBeLessThan(500);
    await db.run.deleteMany({ where: { idempotencyKey: "warm-up" } });
    const answers = await Promise.all(
      people.map((p, i) =>
        call(consoles[i % 2].url, "POST", "/api/runs", p.token, {
          agent: "refund-agent",
          input: { orderId: `ord_${i}` },
        }),
      ),
    );
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([...Array<number>(CAP).fill(201), ...Array<number>(20 - CAP).fill(429)]);
    expect(await db.run.count({ where: { agentSlug: "refund-agent", status: "QUEUED" } })).toBe(CAP);
  });
});
