import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, type Db } from "../lib/db";
import { createMemoryFailureCounter, type FailureCounter, type ThrottleLimit } from "../lib/limits/failure-counter";
import { createMemoryLimiter, type Limiter, type RateLimit } from "../lib/limits/limiter";
import { failureCounterFor, limiterFor, queryOf } from "../lib/limits/limiter-for";
import { createPostgresFailureCounter } from "../lib/limits/postgres-failure-counter";
import { createPostgresLimiter } from "../lib/limits/postgres-limiter";
import { providers, uid } from "./support/runtime";

// The limiter and the sign-in failure count answer the same on both databases: in memory on SQLite, in
// the shared tables on Postgres (the same clock-driven cases run against each). On Postgres two clients
// (as two console replicas would hold) count against the same buckets, and concurrent takes never let
// more through than the bucket holds.

describe.each(providers())("limits [%s]", (provider, url) => {
  let db: Db;
  let now = 0;
  const clock = () => now;
  beforeAll(() => {
    db = createDb(url);
    now = 1_000_000;
  });
  afterAll(async () => {
    await db.$disconnect();
  });

  const limiter = (limit: RateLimit): Limiter =>
    provider === "postgres" ? createPostgresLimiter(queryOf(db), limit, clock) : createMemoryLimiter(limit, clock);
  const counter = (limit: ThrottleLimit, random = () => 0.5): FailureCounter =>
    provider === "postgres"
      ? createPostgresFailureCounter(queryOf(db), { ...limit, namespace: uid("ns"), now: clock, random })
      : createMemoryFailureCounter({ ...limit, now: clock });

  it("lets a burst through, then one request per refill, and says how long to wait", async () => {
    const l = limiter({ perSecond: 2, burst: 3 });
    const k = uid("k");
    const takes = [];
    for (let i = 0; i < 3; i++) takes.push(await l.take([k]));
    expect(takes).toEqual([0, 0, 0]);
    expect(await l.take([k])).toBe(500);
    expect(await l.take([uid("other")])).toBe(0); // keys do not share a bucket
    now += 500;
    expect(await l.take([k])).toBe(0);
    expect(await l.take([k])).toBe(500);
    now += 10_000; // refills up to the burst, never beyond
    for (let i = 0; i < 3; i++) expect(await l.take([k])).toBe(0);
    expect(await l.take([k])).toBeGreaterThan(0);
  });

  it("takes from every key at once: a request passes only when each has room, and the wait is the longest", async () => {
    const l = limiter({ perSecond: 1, burst: 2 });
    const [token, person, token2] = [uid("token"), uid("person"), uid("token2")];
    expect(await l.take([token, person])).toBe(0);
    expect(await l.take([token2, person])).toBe(0);
    expect(await l.take([token2, person])).toBe(1000); // the person's bucket is empty
    expect(await l.take([uid("token3")])).toBe(0);
  });

  it("a failure count locks a key after max failures within the window, until the oldest leaves it or a reset", async () => {
    const c = counter({ max: 3, windowMs: 60_000 });
    for (let i = 0; i < 3; i++) {
      expect(await c.retryAfterMs("a@x")).toBe(0);
      await c.fail("a@x");
      now += 1_000;
    }
    expect(await c.retryAfterMs("a@x")).toBe(57_000);
    expect(await c.retryAfterMs("b@x")).toBe(0);
    now += 57_000;
    expect(await c.retryAfterMs("a@x")).toBe(0); // the first failure left the window
    await c.fail("a@x");
    expect(await c.retryAfterMs("a@x")).toBe(1_000); // three in the window again: until the 2nd (1 s later than the 1st) leaves
    await c.reset("a@x");
    expect(await c.retryAfterMs("a@x")).toBe(0);
  });

  it.runIf(provider === "postgres")(
    "two clients of one database share the buckets and the failure counts (two replicas count once)",
    async () => {
      const other = createDb(url);
      try {
        const limit = { perSecond: 0.001, burst: 4 };
        const key = uid("person");
        const waits = [];
        for (let i = 0; i < 6; i++) waits.push(await limiterFor(i % 2 ? other : db, limit).take([key]));
        expect(waits.map((w) => w > 0)).toEqual([false, false, false, false, true, true]);

        const limits = { max: 2, windowMs: 60_000, namespace: uid("signin") };
        await failureCounterFor(db, limits).fail("a@x");
        await failureCounterFor(other, limits).fail("a@x");
        expect(await failureCounterFor(db, limits).retryAfterMs("a@x")).toBeGreaterThan(0);
      } finally {
        await other.$disconnect();
      }
    },
  );

  it.runIf(provider === "postgres")("concurrent takes on one bucket never let more through than it holds", async () => {
    const l = createPostgresLimiter(queryOf(db), { perSecond: 0.001, burst: 10 });
    const key = uid("racing");
    const waits = await Promise.all(
      Array.from({ length: 40 }, (_, i) => l.take(i % 2 ? [key, uid("token")] : [uid("token"), key])),
    );
    expect(waits.filter((w) => w === 0)).toHaveLength(10);
  });

  it.runIf(provider === "postgres")(
    "a failure deletes its key's rows that left the window; a sweeping one deletes its namespace's",
    async () => {
      let sweep = false;
      const namespace = uid("sweep");
      const c = createPostgresFailureCounter(queryOf(db), {
        max: 5,
        windowMs: 1_000,
        namespace,
        now: clock,
        random: () => (sweep ? 0 : 0.5),
      });
      const rows = () => db.throttleFailure.count({ where: { key: { startsWith: `${namespace}:` } } });
      await c.fail("a");
      await c.fail("b");
      now += 2_000;
      await c.fail("a");
      expect(await rows()).toBe(2); // a's old row went, b's stays
      sweep = true;
      now += 2_000;
      await c.fail("c");
      expect(await rows()).toBe(1);
    },
  );
});
