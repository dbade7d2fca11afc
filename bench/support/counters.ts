import { createRequire } from "node:module";
import pg from "pg";

// Counting at the driver, below Prisma: every SQL statement Prisma's adapters send goes through
// better-sqlite3's Database#prepare or pg's Client#query, so patching those two counts exactly what
// reaches the database (one pg query = one network round trip: Parse/Bind/Execute/Sync are sent
// together). A transaction is BEGIN … COMMIT, or a single statement outside one (autocommit).
// A "write commit" is a COMMIT of a transaction that wrote, or an autocommit INSERT/UPDATE/DELETE:
// the commits that must reach the disk (read-only transactions write no WAL).

export type Counts = {
  statements: number; // round trips (pg) / statements executed (SQLite, in-process)
  reads: number; // SELECT (and other non-writing) statements, BEGIN/COMMIT excluded
  writes: number; // INSERT / UPDATE / DELETE statements
  transactions: number; // explicit BEGIN … COMMIT plus autocommit statements
  writeCommits: number;
  bytesOut: number; // bytes of bound parameters sent (state JSON, events…), a proxy for data written
};

export const zero = (): Counts => ({
  statements: 0,
  reads: 0,
  writes: 0,
  transactions: 0,
  writeCommits: 0,
  bytesOut: 0,
});
export const diff = (a: Counts, b: Counts): Counts => {
  const out = zero();
  for (const k of Object.keys(out) as Array<keyof Counts>) out[k] = b[k] - a[k];
  return out;
};

const counts = { sqlite: zero(), postgres: zero() };
export const snapshot = (provider: "sqlite" | "postgres"): Counts => ({ ...counts[provider] });

/** Statements seen while set (to explain where round trips come from). */
export let sqlLog: string[] | null = null;
export function captureSql(on: boolean) {
  sqlLog = on ? [] : null;
}

const ignored = new WeakSet<object>();
/** A connection whose statements are not counted (the pg_stat_database reader). */
export const ignore = (client: object) => ignored.add(client);

type TxState = { inTx: boolean; wrote: boolean };
const txOf = new WeakMap<object, TxState>();

function paramBytes(values: unknown): number {
  if (!Array.isArray(values)) return 0;
  let n = 0;
  for (const v of values)
    n +=
      typeof v === "string" ? Buffer.byteLength(v) : Buffer.isBuffer(v) ? v.length : v == null ? 0 : String(v).length;
  return n;
}

function record(provider: "sqlite" | "postgres", conn: object, sql: string, bytes: number, inTxNow?: boolean) {
  const c = counts[provider];
  let tx = txOf.get(conn);
  if (!tx) txOf.set(conn, (tx = { inTx: false, wrote: false }));
  if (inTxNow !== undefined) tx.inTx = inTxNow; // SQLite tells us; pg is tracked from BEGIN/COMMIT
  c.statements++;
  c.bytesOut += bytes;
  sqlLog?.push(sql.replace(/\s+/g, " ").slice(0, Number(process.env.BENCH_SQL_WIDTH ?? 160)));
  const head = sql.trimStart().slice(0, 12).toUpperCase();
  if (head.startsWith("BEGIN")) {
    tx.inTx = true;
    tx.wrote = false;
    return;
  }
  if (head.startsWith("COMMIT") || head.startsWith("ROLLBACK")) {
    c.transactions++;
    if (head.startsWith("COMMIT") && tx.wrote) c.writeCommits++;
    tx.inTx = false;
    return;
  }
  const write =
    /^\s*(INSERT|UPDATE|DELETE|REPLACE)\b/i.test(sql) ||
    (/^\s*WITH\b/i.test(sql) && /\b(INSERT|UPDATE|DELETE)\b/i.test(sql));
  if (write) c.writes++;
  else c.reads++;
  if (tx.inTx) tx.wrote ||= write;
  else {
    c.transactions++;
    if (write) c.writeCommits++;
  }
}

let installed = false;
export function installDriverCounters() {
  if (installed) return;
  installed = true;

  // better-sqlite3: each statement the adapter runs is prepared here, and the app keeps prepared statements to run
  // again with new values (lib/sqlite-statements.ts), so each execution is counted (run / all / get / iterate),
  // with the values it was given or, when they were bound beforehand, those.
  const Database = createRequire(import.meta.url)("better-sqlite3");
  const prepare = Database.prototype.prepare;
  Database.prototype.prepare = function (this: { inTransaction: boolean }, sql: string, ...rest: unknown[]) {
    const stmt = prepare.call(this, sql, ...rest);
    if (ignored.has(this)) return stmt;
    let boundBytes = 0;
    const bind = stmt.bind;
    stmt.bind = (...args: unknown[]) => {
      boundBytes = paramBytes(args.flat());
      return bind.apply(stmt, args);
    };
    for (const method of ["run", "all", "get", "iterate"] as const) {
      const execute = stmt[method];
      stmt[method] = (...args: unknown[]) => {
        record("sqlite", this, sql, args.length > 0 ? paramBytes(args.flat()) : boundBytes, this.inTransaction);
        return execute.apply(stmt, args);
      };
    }
    return stmt;
  };

  // pg: every Prisma query (pool or transaction connection) is a Client#query.
  const query = pg.Client.prototype.query as (...a: unknown[]) => unknown;
  (pg.Client.prototype as unknown as { query: unknown }).query = function (
    this: object,
    config: unknown,
    values?: unknown,
    cb?: unknown,
  ) {
    if (!ignored.has(this)) {
      const text = typeof config === "string" ? config : ((config as { text?: string })?.text ?? "");
      record("postgres", this, text, paramBytes(values ?? (config as { values?: unknown })?.values));
    }
    return query.call(this, config, values, cb);
  };
}
