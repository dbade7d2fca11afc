import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { setActionEnvironment } from "../lib/actions/define-action";
import { createApiTokenAction } from "../lib/actions/tokens";
import type { SessionUser } from "../lib/auth/rbac";
import { createDb, type Db } from "../lib/db";
import { providers, uid } from "./support/runtime";
import { startRouteServer } from "./support/route-server";

// Server actions are rate-limited like the API's routes: per person, from the same bucket, so a person
// cannot go around the limit by switching between the console's forms and a token of theirs. A refused
// action does nothing and says when to try again.

describe.each(providers())("server actions' rate limit [%s]", (_provider, url) => {
  let db: Db;
  let server: Awaited<ReturnType<typeof startRouteServer>>;
  let session: SessionUser | null = null;

  beforeAll(async () => {
    process.env.DATABASE_URL = url; // the route handlers' composition root follows it
    db = createDb(url);
    server = await startRouteServer();
    setActionEnvironment({ getUser: async () => session, getDb: () => db, revalidatePath: () => {} });
  });
  afterEach(() => {
    delete process.env.TETHER_RATE_LIMIT;
  });
  afterAll(async () => {
    setActionEnvironment(null);
    await server.close();
    await db.$disconnect();
  });

  it("past the person's burst an action is refused with RATE_LIMITED and does nothing; their API token shares the bucket", async () => {
    const user: SessionUser = { id: uid("usr"), email: `${uid("admin")}@test.example`, name: null, role: "admin" };
    await db.user.create({ data: { id: user.id, email: user.email, role: "admin" } });
    session = user;
    const created = await createApiTokenAction({ name: uid("ci"), scopes: ["runs:read"] }); // before the limit is set
    if (!created.ok) throw new Error(created.message);

    process.env.TETHER_RATE_LIMIT = "0.01,3"; // one request per 100 s refilled: none during the test
    const results = [];
    for (let i = 0; i < 4; i++) results.push(await createApiTokenAction({ name: uid("ci"), scopes: ["runs:read"] }));
    expect(results.map((r) => (r.ok ? "ok" : r.code))).toEqual(["ok", "ok", "ok", "RATE_LIMITED"]);
    expect(results[3]).toMatchObject({
      ok: false,
      message: expect.stringMatching(/Too many requests: try again in \d+ s/),
    });
    expect(await db.apiToken.count({ where: { createdBy: user.email } })).toBe(4); // the refused one made nothing

    const res = await fetch(`${server.url}/api/runs?limit=1`, {
      headers: { authorization: `Bearer ${created.data.token}` },
    });
    expect(res.status).toBe(429); // the same person's bucket, emptied by the actions
    const other: SessionUser = { id: uid("usr"), email: `${uid("admin")}@test.example`, name: null, role: "admin" };
    await db.user.create({ data: { id: other.id, email: other.email, role: "admin" } });
    session = other;
    expect((await createApiTokenAction({ name: uid("ci"), scopes: ["runs:read"] })).ok).toBe(true); // another person is not slowed
  });
});
