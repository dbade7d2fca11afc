// The single Prisma client factory. DATABASE_URL picks the database: postgres(ql):// → Postgres,
// anything else (or nothing) → the embedded SQLite file in TETHER_DATA_DIR (default ./data).
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { getConfig, type Config } from "./config";
import { keepPreparedStatements, type SqliteConnection } from "./sqlite-statements";
import { workspaceScope } from "./workspaces/scope";
import { PrismaClient as SqliteClient } from "./generated/sqlite/client.ts";
import { PrismaClient as PostgresClient } from "./generated/postgres/client.ts";

// Both generated clients have the same model API; code is written against the SQLite type.
export type Db = InstanceType<typeof SqliteClient>;
/** An interactive transaction's client (what `db.$transaction(async (tx) => …)` hands its callback). */
export type DbTransaction = Parameters<Parameters<Db["$transaction"]>[0]>[0];
export type DbProvider = "sqlite" | "postgres";

/** DATABASE_URL, else the embedded SQLite file in TETHER_DATA_DIR (lib/config.ts). */
export function defaultDatabaseUrl(config: Config = getConfig()): string {
  return config.database.url;
}

export function providerOf(url: string): DbProvider {
  return /^postgres(ql)?:\/\//.test(url) ? "postgres" : "sqlite";
}

/** Which database a client speaks: the generated client knows its provider ("postgresql" or "sqlite"). */
export function providerOfDb(db: Db): DbProvider {
  return (db as unknown as { _activeProvider?: string })._activeProvider === "postgresql" ? "postgres" : "sqlite";
}

// What each client was made with: its URL (the store opens a LISTEN connection of its own to the
// same Postgres: a pooled connection cannot hold a LISTEN); on Postgres, the pg pool that Prisma's
// adapter runs on, which the runtime store's hot statements share (lib/store/hot-path.ts); on SQLite,
// the adapter's connection once Prisma has opened it, where the store commits a step (lib/sqlite-statements.ts).
type Made = { url: string; pool?: pg.Pool; sqlite?: { connection?: SqliteConnection } };
const made = new WeakMap<Db, Made>();
export const databaseUrlOf = (db: Db): string | undefined => made.get(db)?.url;
export const poolOf = (db: Db): pg.Pool | undefined => made.get(db)?.pool;

/** The SQLite client's connection under Prisma's adapter (opened first if Prisma has none open); null on Postgres. */
export function sqliteConnectionOf(db: Db): (() => Promise<SqliteConnection>) | null {
  const sqlite = made.get(db)?.sqlite;
  if (!sqlite) return null;
  return async () => {
    if (!sqlite.connection?.isOpen()) await db.$connect();
    return sqlite.connection!;
  };
}

/** TETHER_PG_POOL_SIZE: connections per process to Postgres, shared by Prisma and the hot path (pg's default: 10). */
export function poolSize(config: Config = getConfig()): number {
  return config.database.poolSize;
}

export function createDb(url: string = defaultDatabaseUrl()): Db {
  if (providerOf(url) === "postgres") {
    // Prisma's $disconnect leaves a pool it was given open: idle connections close by themselves
    // (and never hold a process that is done), so a disconnected client has no backend left soon after.
    const pool = new pg.Pool({
      connectionString: url,
      max: poolSize(),
      allowExitOnIdle: true,
      idleTimeoutMillis: 2_000,
    });
    // An idle connection the server closed (a restart, a dropped database) is discarded by the pool;
    // without a listener its error would crash the process once Prisma has let go of the pool.
    pool.on("error", () => {});
    const db = scoped(new PostgresClient({ adapter: new PrismaPg(pool) }) as unknown as Db);
    made.set(db, { url, pool });
    return db;
  }
  const sqlite: Made["sqlite"] = {};
  const db = scoped(createSqliteClient(url, sqlite));
  made.set(db, { url, sqlite });
  return db;
}

/** Every client reads and writes within the active workspace (lib/workspaces/scope.ts); the system's calls pass through. */
const scoped = (db: Db): Db => db.$extends(workspaceScope as never) as unknown as Db;

function createSqliteClient(url: string, opened: NonNullable<Made["sqlite"]>): Db {
  // WAL (set once per file by the set-up) lets the console read while a worker commits.
  // synchronous=FULL makes every commit durable across power loss, not only across a process crash:
  // better-sqlite3 is built with WAL's default lowered to NORMAL, so it is set on every connection.
  // SQLite has one writer: a statement waits up to this long for the file's write lock before it fails. On a
  // loaded machine a writer process can be descheduled while it holds the lock for seconds (seen with two test
  // suites and the evals' worker processes on 2 cores); waiting is what a single-node deployment wants, not an error.
  const adapter = new PrismaBetterSQLite3({ url, timeout: 20_000 });
  const connect = adapter.connect.bind(adapter);
  adapter.connect = async () => {
    const connection = await connect();
    // lib/sqlite-statements.ts: each query text is prepared once, not on every call; the store commits steps on it.
    opened.connection = keepPreparedStatements(connection);
    // Planner statistics, as SQLite advises for long-lived connections (bounded by analysis_limit): without
    // them it may pick a filter's less selective index (a history filtered by decision and reviewer: 200 ms → 5 ms).
    await connection.executeScript(
      "PRAGMA synchronous = FULL; PRAGMA analysis_limit = 400; PRAGMA optimize = 0x10002;",
    );
    return connection;
  };
  // An interactive transaction waits out that lock too: by default Prisma gives it 5 s in all, after which the
  // import of an eval dataset beside a busy console failed with "Operation has timed out" (two suites on 2 cores).
  return new SqliteClient({ adapter, transactionOptions: { maxWait: 20_000, timeout: 30_000 } });
}

let shared: { url: string; db: Db } | undefined;

/** The process-wide client for the app and the worker (tests create their own). */
export function getDb(): Db {
  const url = defaultDatabaseUrl();
  if (!shared || shared.url !== url) shared = { url, db: createDb(url) };
  return shared.db;
}
