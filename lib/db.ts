// The single Prisma client factory. DATABASE_URL picks the database: postgres(ql):// → Postgres,
// anything else (or nothing) → the embedded SQLite file in TETHER_DATA_DIR (default ./data).
import path from "node:path";
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient as SqliteClient } from "./generated/sqlite/client.ts";
import { PrismaClient as PostgresClient } from "./generated/postgres/client.ts";

// Both generated clients have the same model API; code is written against the SQLite type.
export type Db = InstanceType<typeof SqliteClient>;
export type DbProvider = "sqlite" | "postgres";

export function defaultDatabaseUrl(env: NodeJS.ProcessEnv = process.env): string {
  return env.DATABASE_URL || `file:${path.join(env.TETHER_DATA_DIR ?? "./data", "tether.db")}`;
}

export function providerOf(url: string): DbProvider {
  return /^postgres(ql)?:\/\//.test(url) ? "postgres" : "sqlite";
}

/** Which database a client speaks: the generated client knows its provider ("postgresql" or "sqlite"). */
export function providerOfDb(db: Db): DbProvider {
  return (db as unknown as { _activeProvider?: string })._activeProvider === "postgresql" ? "postgres" : "sqlite";
}

// The URL each client was made for: the store opens a LISTEN connection of its own to the same
// Postgres (a pooled Prisma connection cannot hold a LISTEN).
const urls = new WeakMap<Db, string>();
export const databaseUrlOf = (db: Db): string | undefined => urls.get(db);

export function createDb(url: string = defaultDatabaseUrl()): Db {
  const db = createClient(url);
  urls.set(db, url);
  return db;
}

function createClient(url: string): Db {
  if (providerOf(url) === "postgres") {
    return new PostgresClient({ adapter: new PrismaPg({ connectionString: url }) }) as unknown as Db;
  }
  // WAL (set once per file by the set-up) lets the console read while a worker commits.
  // synchronous=FULL makes every commit durable across power loss, not only across a process crash:
  // better-sqlite3 is built with WAL's default lowered to NORMAL, so it is set on every connection.
  const adapter = new PrismaBetterSQLite3({ url, timeout: 5000 });
  const connect = adapter.connect.bind(adapter);
  adapter.connect = async () => {
    const connection = await connect();
    await connection.executeScript("PRAGMA synchronous = FULL;");
    return connection;
  };
  return new SqliteClient({ adapter });
}

let shared: { url: string; db: Db } | undefined;

/** The process-wide client for the app and the worker (tests create their own). */
export function getDb(): Db {
  const url = defaultDatabaseUrl();
  if (!shared || shared.url !== url) shared = { url, db: createDb(url) };
  return shared.db;
}
