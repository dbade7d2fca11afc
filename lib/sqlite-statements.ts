import type Database from "better-sqlite3";

// Prisma's better-sqlite3 adapter prepares every query anew (`client.prepare(sql).bind(args)`), and preparing costs
// more than running one of the engine's small statements: measured on a pure step (bench/profile.ts, PROFILE_DB=sqlite),
// better-sqlite3's Statement constructor was ~7% of the step's CPU. The texts are few (a step's commit, a claim,
// Prisma's queries), so the connection keeps the last ones prepared and binds each call's values afresh.
// Only the calls the adapter makes are served (adapter-better-sqlite3 6.19: bind, then reader / run / columns /
// raw().all(); and run() unbound, for BEGIN); better-sqlite3's own methods (pragma, transaction) prepare natively.

const KEPT = 256;

type Statement = Database.Statement<unknown[]>;
type Values = unknown[];

/** A prepared statement with one call's values: what `prepare(sql).bind(values)` gives the adapter. */
function withValues(statement: Statement, values: Values) {
  return {
    reader: statement.reader,
    run: () => statement.run(values),
    columns: () => statement.columns(),
    raw: () => ({ all: () => statement.raw(true).all(values) }),
  };
}

/** The adapter's connection prepares through a cache of the last KEPT statements, by their text. */
export function keepPreparedStatements(connection: object): void {
  const client = (connection as { client: Database.Database }).client;
  const prepare = client.prepare.bind(client) as (sql: string) => Statement;
  const kept = new Map<string, Statement>();
  const prepared = (sql: string): Statement => {
    let statement = kept.get(sql);
    if (statement) {
      kept.delete(sql); // most recently used last: the first one is the one to let go
    } else {
      statement = prepare(sql);
      if (kept.size >= KEPT) kept.delete(kept.keys().next().value!);
    }
    kept.set(sql, statement);
    return statement;
  };
  client.prepare = ((sql: string) => {
    const statement = prepared(sql);
    // The adapter binds once per call; a bound statement could not be bound again, so the values travel with the call.
    return {
      reader: statement.reader,
      bind: (values: Values) => withValues(statement, values),
      run: () => statement.run(),
    };
  }) as unknown as typeof client.prepare;
}
