import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync } from "node:fs";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { providerOf, type DbProvider } from "../../lib/db";

// One fresh SQLite file and one throwaway Postgres database per test run, both made by the production
// set-up script (the committed migrations, WAL on SQLite, the runs search index).
// Postgres: TETHER_TEST_PG_URL names a server database to create the throwaway one next to
// (default postgresql://postgres@127.0.0.1:5432/postgres). When TETHER_REQUIRE_PG=1 (CI), a missing
// Postgres fails the run instead of skipping its tests.

declare module "vitest" {
  export interface ProvidedContext {
    sqliteUrl: string;
    postgresUrl: string | null;
  }
}

/**
 * The database set up as production's `npm start` sets it up (scripts/setup.ts without the seed): the
 * committed migrations, then what lives outside them (the runs search index). bench/ uses it too.
 */
export function migrate(url: string, provider: DbProvider) {
  // Set-up picks the database from the URL alone: a caller that means another one has a bug.
  if (providerOf(url) !== provider)
    throw new Error(`migrate: ${provider} asked for, but the URL names ${providerOf(url)}`);
  execFileSync("npx", ["tsx", "scripts/setup.ts", "--no-seed"], {
    stdio: "pipe",
    env: {
      ...process.env,
      DATABASE_URL: url,
      // set-up's other chores stay out of a throwaway database: the session secret is written under data/test,
      // and no API token is made from a TETHER_BOOTSTRAP_TOKEN the developer's environment may hold
      TETHER_DATA_DIR: "data/test",
      TETHER_BOOTSTRAP_TOKEN: "",
      CHECKPOINT_DISABLE: "1",
      PRISMA_HIDE_UPDATE_MESSAGE: "1",
    },
  });
}

type TestDatabase = { url: string; drop: () => void };

/** A migrated Postgres database of its own, or null when Postgres is unreachable (and not required). */
export function createPostgres(name = `tether_test_${process.pid}_${Date.now()}`): TestDatabase | null {
  const admin = new URL(process.env.TETHER_TEST_PG_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres");
  const psql = (sql: string) =>
    execFileSync(
      "psql",
      [
        "-h",
        admin.hostname,
        "-p",
        admin.port || "5432",
        "-U",
        decodeURIComponent(admin.username || "postgres"),
        "-d",
        admin.pathname.slice(1) || "postgres",
        "-v",
        "ON_ERROR_STOP=1",
        "-qc",
        sql,
      ],
      {
        stdio: "pipe",
        env: { ...process.env, PGPASSWORD: decodeURIComponent(admin.password) },
      },
    );
  try {
    psql(`CREATE DATABASE "${name}"`);
  } catch (error) {
    if (process.env.TETHER_REQUIRE_PG === "1")
      throw new Error(`Postgres is required (TETHER_REQUIRE_PG=1) but unreachable: ${String(error)}`);
    console.warn(
      "[tests] Postgres unreachable: Postgres tests are skipped. Set TETHER_REQUIRE_PG=1 to make this fatal.",
    );
    return null;
  }
  const url = new URL(admin);
  url.pathname = `/${name}`;
  migrate(url.toString(), "postgres");
  return { url: url.toString(), drop: () => psql(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`) };
}

/** A SQLite file of its own, set up as production makes it (in WAL mode, so worker processes can run beside tests). */
export async function createSqlite(file: string): Promise<TestDatabase> {
  const drop = () => {
    for (const suffix of ["", "-wal", "-shm", "-journal"]) rmSync(file + suffix, { force: true });
  };
  drop();
  const url = `file:${file}`;
  migrate(url, "sqlite");
  return { url, drop };
}

export default async function setup(project: TestProject) {
  const dir = path.resolve("data/test");
  mkdirSync(dir, { recursive: true });
  // WAL (set-up makes it): crash tests run worker processes next to the test process.
  const sqlite = await createSqlite(path.join(dir, `test-${process.pid}.db`));
  const pg = createPostgres();
  project.provide("sqliteUrl", sqlite.url);
  project.provide("postgresUrl", pg?.url ?? null);
  return () => {
    pg?.drop();
    sqlite.drop();
  };
}
