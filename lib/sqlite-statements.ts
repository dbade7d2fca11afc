import type Database from "better-sqlite3";

// The better-sqlite3 connection under Prisma's adapter, reached two ways.
//
// 1. Prisma's queries. The adapter prepares every query anew (`client.prepare(sql).bind(args)`), and preparing costs
// more than running one of the engine's small statements: measured on a pure step (bench/profile.ts, PROFILE_DB=sqlite),
// better-sqlite3's Statement constructor was ~7% of the step's CPU. The texts are few (a step's commit, a claim,
// Prisma's queries), so the connection keeps the last ones prepared and binds each call's values afresh.
// Only the calls the adapter makes are served (adapter-better-sqlite3 6.19: bind, then reader / run / columns /
// raw().all(); and run() unbound, for BEGIN, said here as BEGIN IMMEDIATE); better-sqlite3's own methods (pragma,
// transaction) prepare natively.
//
// 2. The store's step commit (lib/store/steps.ts), synchronously, in a transaction of its own (`inTransaction`):
// a step's few statements through Prisma's interactive $transaction and raw queries were ~30% of a SQLite step's
// CPU, and on one in-process connection there is nothing for the client engine to do.

const KEPT = 256;

type Statement = Database.Statement<unknown[]>;
type Values = unknown[];

/** The adapter's connection (PrismaBetterSQLite3Adapter): its better-sqlite3 client and its transaction lock. */
type AdapterConnection = {
  client: Database.Database;
  /** Waits for the adapter's lock (one transaction at a time on the connection), then says BEGIN. */
  startTransaction(): Promise<{ commit(): Promise<void> }>;
};

/** The last KEPT statements prepared by `prepare`, by their text. */
function keptStatements(prepare: (sql: string) => Statement, made: (statement: Statement) => void = () => {}) {
  const kept = new Map<string, Statement>();
  return (sql: string): Statement => {
    let statement = kept.get(sql);
    if (statement) {
      kept.delete(sql); // most recently used last: the first one is the one to let go
    } else {
      statement = prepare(sql);
      made(statement);
      if (kept.size >= KEPT) kept.delete(kept.keys().next().value!);
    }
    kept.set(sql, statement);
    return statement;
  };
}

/** A prepared statement with one call's values: what `prepare(sql).bind(values)` gives the adapter. */
function withValues(statement: Statement, values: Values) {
  return {
    reader: statement.reader,
    run: () => statement.run(values),
    columns: () => statement.columns(),
    raw: () => ({ all: () => statement.raw(true).all(values) }),
  };
}

/**
 * A Prisma transaction (the adapter says BEGIN) takes the write lock at once, waiting for it as any write does (the
 * connection's busy timeout). Begun deferred, a transaction that reads before it writes asks for the lock at its first
 * write, while it holds a read snapshot; if another process writes meanwhile, SQLite answers "database is locked" at
 * once instead of waiting, since waiting could deadlock: the eval CLI's dataset import (read the dataset, then create
 * it) failed so beside the busy console of the e2e tests. Readers are not blocked by it (WAL).
 */
const BEGIN_WRITING = "BEGIN IMMEDIATE";

/**
 * The adapter's connection prepares through a cache of the last KEPT statements, by their text; the returned
 * handle runs the store's own transactions on the same connection (`inTransaction`).
 */
export function keepPreparedStatements(connection: object): SqliteConnection {
  const client = (connection as { client: Database.Database }).client;
  const prepare = client.prepare.bind(client) as (sql: string) => Statement;
  const prepared = keptStatements(prepare);
  client.prepare = ((sql: string) => {
    const statement = prepared(sql === "BEGIN" ? BEGIN_WRITING : sql);
    // The adapter binds once per call; a bound statement could not be bound again, so the values travel with the call.
    return {
      reader: statement.reader,
      bind: (values: Values) => withValues(statement, values),
      run: () => statement.run(),
    };
  }) as unknown as typeof client.prepare;
  return sqliteConnection(connection as AdapterConnection, prepare);
}

/** Statements run at once, on the connection, inside the transaction that `inTransaction` opened. */
export type SyncStatements = {
  /** The rows a statement returns (a SELECT, a write's RETURNING), integers as numbers. */
  all<T>(sql: string, values: Values): T[];
  /** How many rows a write changed. */
  run(sql: string, values: Values): number;
};

export type SqliteConnection = {
  /** False once Prisma has closed it ($disconnect): its next connect opens another. */
  isOpen(): boolean;
  /**
   * `work` runs synchronously between BEGIN and COMMIT; a throw rolls all of it back and is rethrown. Nothing else can
   * run on the connection in between: JavaScript runs nothing else while `work` does, and when a Prisma transaction is
   * open on the connection this one waits for it through the adapter's lock.
   */
  inTransaction<T>(work: (statements: SyncStatements) => T): Promise<T>;
};

/**
 * A value bound exactly as the adapter binds a raw query's (adapter-better-sqlite3 6.19 `mapArg`, after Prisma's raw
 * parameter serialisation): a Date as ISO text with "+00:00" — what Prisma's own writes store and its reads parse —,
 * a boolean as 1 / 0, undefined as NULL (Prisma sends the parameters as JSON).
 */
export function sqliteValue(value: unknown): unknown {
  if (value instanceof Date) return value.toISOString().replace("Z", "+00:00");
  if (value === undefined) return null;
  if (typeof value === "boolean") return value ? 1 : 0;
  return value;
}

function sqliteConnection(connection: AdapterConnection, prepare: (sql: string) => Statement): SqliteConnection {
  const { client } = connection;
  // Statements of their own, not the adapter's: these read integers as numbers (the connection reads them as BigInt,
  // which the adapter converts), and a statement's modes are its own.
  const prepared = keptStatements(prepare, (statement) => statement.safeIntegers(false));
  const control = (sql: string) => () => void prepared(sql).run();
  const [begin, commit, rollback] = [control("BEGIN"), control("COMMIT"), control("ROLLBACK")];
  const statements: SyncStatements = {
    all: <T>(sql: string, values: Values) => prepared(sql).all(values.map(sqliteValue)) as T[],
    run: (sql, values) => prepared(sql).run(values.map(sqliteValue)).changes,
  };
  /** In the transaction already begun: COMMIT what `work` wrote, or ROLLBACK on a throw. */
  function finish<T>(work: (statements: SyncStatements) => T): T {
    try {
      const result = work(statements);
      commit();
      return result;
    } catch (error) {
      if (client.inTransaction) rollback();
      throw error;
    }
  }
  return {
    isOpen: () => client.open,
    async inTransaction(work) {
      if (!client.inTransaction) {
        // No transaction is open, and none can open before this one ends: it is synchronous from BEGIN to COMMIT.
        begin();
        return finish(work);
      }
      // A Prisma transaction is open (it awaits between its statements): wait for its end through the adapter's
      // lock, which the adapter hands over with BEGIN said. Its commit() only releases the lock.
      const lock = await connection.startTransaction();
      try {
        return finish(work);
      } finally {
        await lock.commit();
      }
    },
  };
}
