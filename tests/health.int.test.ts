import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { GET as live } from "../app/api/health/live/route";
import { GET as ready } from "../app/api/health/ready/route";
import { createDb, type Db } from "../lib/db";
import { migrationsDir, shippedMigrations } from "../lib/lifecycle/migrations";
import { checkReadiness, type ReadinessInput } from "../lib/lifecycle/readiness";
import { providers } from "./support/runtime";

// The two health endpoints beside GET /api/health (unchanged): live answers without a database; ready
// answers 503 with the first reason this console should not get traffic. On both databases, migrated by
// the production set-up (tests/support/global-setup.ts).

const root = path.resolve(__dirname, "..");

describe("GET /api/health/live", () => {
  it("answers 200 with no database behind it", async () => {
    const previous = process.env.DATABASE_URL;
    process.env.DATABASE_URL = "postgresql://nobody@127.0.0.1:1/none"; // unreachable: live does not care
    try {
      const response = live();
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ ok: true });
    } finally {
      if (previous === undefined) delete process.env.DATABASE_URL;
      else process.env.DATABASE_URL = previous;
    }
  });
});

describe.each(providers())("readiness [%s]", (provider, url) => {
  const db = createDb(url);
  const tmp = mkdtempSync(path.join(tmpdir(), "tether-ready-"));
  const shipped = migrationsDir(root, provider);
  const base = (over: Partial<ReadinessInput> = {}): ReadinessInput => ({
    db,
    provider,
    migrationsDir: shipped,
    worker: { enabled: false, running: false },
    isShuttingDown: false,
    ...over,
  });
  const others: Db[] = [];
  afterAll(async () => {
    await Promise.all([db, ...others].map((d) => d.$disconnect()));
    rmSync(tmp, { recursive: true, force: true });
  });

  it("ready on a database at head, with the worker off or running", async () => {
    expect(await checkReadiness(base())).toEqual({
      ready: true,
      database: provider,
      migrations: { pending: [], ahead: [] },
      worker: "off",
    });
    expect(await checkReadiness(base({ worker: { enabled: true, running: true } }))).toMatchObject({
      ready: true,
      worker: "running",
    });
  });

  it("a migration this build ships and the database lacks (or applied from another file) is pending", async () => {
    const dir = path.join(tmp, "newer");
    cpSync(shipped, dir, { recursive: true });
    mkdirSync(path.join(dir, "29990101000000_next_feature"));
    writeFileSync(path.join(dir, "29990101000000_next_feature", "migration.sql"), "SELECT 1;\n");
    const first = shippedMigrations(shipped)[0].name;
    writeFileSync(path.join(dir, first, "migration.sql"), "-- edited after it was applied\n", { flag: "a" });
    const readiness = await checkReadiness(base({ migrationsDir: dir }));
    expect(readiness.ready).toBe(false);
    expect(readiness.migrations?.pending).toEqual([first, "29990101000000_next_feature"]);
    expect(readiness.reason).toBe(`migrations pending: ${first}, 29990101000000_next_feature (run the migrate step)`);
  });

  it("migrations the database has and this build does not (a newer build migrated it) are reported, not refused", async () => {
    const dir = path.join(tmp, "older");
    cpSync(shipped, dir, { recursive: true });
    const last = shippedMigrations(shipped).at(-1)!.name;
    rmSync(path.join(dir, last), { recursive: true });
    expect(await checkReadiness(base({ migrationsDir: dir }))).toMatchObject({
      ready: true,
      migrations: { pending: [], ahead: [last] },
    });
  });

  // A Postgres database without tables answers the same query; SQLite makes an empty one cheaply.
  it.skipIf(provider !== "sqlite")("an empty database has every migration pending", async () => {
    const fresh = createDb(`file:${path.join(tmp, "empty.db")}`);
    others.push(fresh);
    const readiness = await checkReadiness({ ...base(), db: fresh });
    expect(readiness.ready).toBe(false);
    expect(readiness.migrations?.pending.length).toBeGreaterThan(5);
  });

  it("the embedded worker enabled and not started (or failed), and a console that is shutting down, are not ready", async () => {
    expect(await checkReadiness(base({ worker: { enabled: true, running: false } }))).toMatchObject({
      ready: false,
      reason: "embedded worker not started yet",
      worker: "not started",
    });
    expect(
      await checkReadiness(
        base({ worker: { enabled: true, running: false, failure: "TETHER_SANDBOX must be 1/true/on" } }),
      ),
    ).toMatchObject({ ready: false, reason: "embedded worker failed to start: TETHER_SANDBOX must be 1/true/on" });
    expect(await checkReadiness(base({ isShuttingDown: true }))).toMatchObject({
      ready: false,
      reason: "shutting down: draining the worker before exit",
    });
  });

  it("an unreachable database is a 503 whose reason carries no connection string", async () => {
    const gone = createDb("postgresql://secret-user:secret-pass@127.0.0.1:1/nowhere");
    others.push(gone);
    const readiness = await checkReadiness({ ...base(), db: gone, provider: "postgres", timeoutMs: 10_000 });
    expect(readiness.ready).toBe(false);
    expect(readiness.reason).toMatch(/^database unreachable: /);
    expect(JSON.stringify(readiness)).not.toMatch(/secret|nowhere/);
  });

  it("the route answers 200 on this database, and 503 with the reason while its worker is not started", async () => {
    const saved = {
      DATABASE_URL: process.env.DATABASE_URL,
      TETHER_EMBEDDED_WORKER: process.env.TETHER_EMBEDDED_WORKER,
    };
    process.env.DATABASE_URL = url;
    try {
      process.env.TETHER_EMBEDDED_WORKER = "0";
      let response = await ready();
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ ready: true, database: provider, worker: "off" });
      process.env.TETHER_EMBEDDED_WORKER = "1"; // this test process never started one
      response = await ready();
      expect(response.status).toBe(503);
      expect(await response.json()).toMatchObject({
        ready: false,
        reason: "embedded worker not started yet",
        error: { code: "NOT_READY", message: "embedded worker not started yet" },
      });
    } finally {
      for (const [key, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
    }
  });
});
