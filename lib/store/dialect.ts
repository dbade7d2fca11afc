import { databaseUrlOf, providerOfDb, sqliteConnectionOf, type Db } from "@/lib/db";
import type { SyncStatements } from "@/lib/sqlite-statements";
import type { Logger } from "@/lib/runtime/types";
import { groupCommits } from "./group-commit";
import { hotQuery, hotTransaction, type HotQuery, type HotTransaction } from "./hot-path";
import { createWakeups, type Wakeups } from "./wakeups";

// What every capability of the store (runs.ts, steps.ts, leases.ts, …) is built on, chosen once per
// database: which SQL to speak, how a raw statement reaches the database, the clocks and the wake-ups.
// A capability file holds its Prisma side and both raw-SQL sides next to each other and picks one by
// `name` when it is created, never per call.

export type Dialect = {
  name: "postgres" | "sqlite";
  db: Db;
  /** The store's clock: checkpoints, events, leases (a test may pass its own). */
  now: () => Date;
  /** The wall clock, for Run.updatedAt in raw statements: what Prisma's @updatedAt writes (not the store's clock). */
  wallClock: () => Date;
  /** A raw statement: Postgres straight to the pg pool (hot-path.ts); SQLite through Prisma's connection. */
  query: HotQuery;
  /** Several statements under one commit on one pooled connection (Postgres); null on SQLite. */
  transaction: HotTransaction | null;
  /** Statements run synchronously under one commit on the connection under Prisma's adapter (SQLite); null on Postgres. */
  syncTransaction: SyncTransaction | null;
  /** A step's commit, or a new run: one statement each; on Postgres, those ready at the same moment share a
   *  transaction (group-commit.ts). */
  commits: HotQuery;
  wakeups: Wakeups;
};

export type SyncTransaction = <T>(work: (statements: SyncStatements) => T) => Promise<T>;

export function dialectOf(db: Db, opts: { now?: () => Date; logger?: Logger } = {}): Dialect {
  const postgres = providerOfDb(db) === "postgres";
  const query = hotQuery(db);
  const transaction = hotTransaction(db);
  const sqlite = sqliteConnectionOf(db);
  return {
    name: postgres ? "postgres" : "sqlite",
    db,
    now: opts.now ?? (() => new Date()),
    wallClock: () => new Date(),
    query,
    transaction,
    syncTransaction: sqlite ? async (work) => (await sqlite()).inTransaction(work) : null,
    commits: transaction ? groupCommits(query, transaction).query : query,
    wakeups: createWakeups({ listenUrl: postgres ? databaseUrlOf(db) : undefined, logger: opts.logger }),
  };
}
