import { mkdirSync } from "node:fs";
import path from "node:path";
import pg from "pg";
import type { Db } from "../../lib/db";
import { createSqlite as createSqliteFile, migrate } from "../../tests/support/global-setup";
import { ignore } from "./counters";

// Throwaway databases, made by tests/support/global-setup.ts's helpers (prisma migrate deploy with the
// committed migrations; SQLite switched to WAL as production set-up does).

export function createSqlite(): Promise<{ url: string; drop: () => void }> {
  const dir = path.resolve("data/bench");
  mkdirSync(dir, { recursive: true });
  return createSqliteFile(path.join(dir, `bench-${process.pid}.db`));
}

export type PgHandle = { url: string; name: string; admin: pg.Client; drop: () => Promise<void> };

/** A throwaway Postgres database, or null (with the reason) when the server is unreachable. */
export async function createPostgres(): Promise<PgHandle | string> {
  const adminUrl = new URL(process.env.TETHER_BENCH_PG_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres");
  const admin = new pg.Client({ connectionString: adminUrl.toString(), connectionTimeoutMillis: 3000 });
  ignore(admin); // its statements are ours, not the engine's
  try {
    await admin.connect();
  } catch (error) {
    return `Postgres unreachable at ${adminUrl.host}: ${(error as Error).message}`;
  }
  const name = `tether_bench_${process.pid}_${Date.now()}`;
  await admin.query(`CREATE DATABASE "${name}"`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const drop = async () => {
    // Let disconnected clients' idle connections close first (a pool that a disconnected Prisma client
    // leaves behind may have no 'error' listener: a connection terminated under it would crash the bench).
    await noBackends(admin, name, 5_000);
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.end();
  };
  try {
    migrate(url.toString(), "postgres");
  } catch (error) {
    await drop();
    throw error;
  }
  return { url: url.toString(), name, admin, drop };
}

/**
 * pg_stat_database.xact_commit of the bench database, read from the admin connection (another
 * database, so the read itself is not counted). A backend reports its counters when it exits, so
 * the caller disconnects the bench client first; we wait until no backend of the database is left.
 */
async function noBackends(admin: pg.Client, name: string, ms: number) {
  for (let waited = 0; waited < ms; waited += 25) {
    const { rows } = await admin.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1", [name]);
    if (rows[0].n === 0) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return false;
}

export async function xactCommit(h: PgHandle): Promise<number> {
  await noBackends(h.admin, h.name, 5_000);
  let last = -1;
  for (;;) {
    await new Promise((r) => setTimeout(r, 100));
    const { rows } = await h.admin.query("SELECT xact_commit::bigint AS c FROM pg_stat_database WHERE datname = $1", [
      h.name,
    ]);
    const value = Number(rows[0].c);
    if (value === last) return value;
    last = value;
  }
}

export async function sqliteInfo(db: Db) {
  const [{ v }] = await db.$queryRawUnsafe<Array<{ v: string }>>("SELECT sqlite_version() AS v");
  const [{ journal_mode }] = await db.$queryRawUnsafe<Array<{ journal_mode: string }>>("PRAGMA journal_mode");
  const [{ synchronous }] = await db.$queryRawUnsafe<Array<{ synchronous: bigint | number }>>("PRAGMA synchronous");
  const sync = ["OFF", "NORMAL", "FULL", "EXTRA"][Number(synchronous)] ?? String(synchronous);
  return { version: `SQLite ${v}`, settings: `journal_mode=${journal_mode}, synchronous=${sync}` };
}

export async function postgresInfo(h: PgHandle) {
  const show = async (s: string) => (await h.admin.query(`SHOW ${s}`)).rows[0][s];
  return {
    version: `PostgreSQL ${await show("server_version")}`,
    settings: `synchronous_commit=${await show("synchronous_commit")}, fsync=${await show("fsync")}, wal_sync_method=${await show("wal_sync_method")}`,
  };
}

/** `measure` on a throwaway SQLite database, then on a throwaway Postgres one (BENCH_SKIP_PG=1: SQLite only). */
export async function onEachDatabase(measure: (label: string, url: string) => Promise<void>) {
  const sqlite = await createSqlite();
  try {
    await measure("SQLite (WAL, synchronous=FULL)", sqlite.url);
  } finally {
    sqlite.drop();
  }
  if (process.env.BENCH_SKIP_PG === "1") return;
  const pg = await createPostgres();
  if (typeof pg === "string") {
    console.log(`\nPostgres skipped: ${pg}`);
    return;
  }
  try {
    await measure("Postgres 15", pg.url);
  } finally {
    await pg.drop();
  }
}
