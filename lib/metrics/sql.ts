// What the metrics queries need to say differently on SQLite and Postgres, their bound values, and the
// pieces they share (the runs of a window). Only constants of this code (statuses, bucket bounds) are
// written into the SQL; every value that comes from the clock is bound.
import { providerOfDb, type Db } from "@/lib/db";
import { RUN_STATUSES, TERMINAL_STATUSES } from "@/lib/runtime/types";

export type Dialect = {
  param: (n: number) => string;
  /** A DateTime column (or expression) as seconds since the epoch, fractional. */
  epochSeconds: (sql: string) => string;
  /** A top-level string field of a JSON text column. */
  jsonText: (column: string, key: string) => string;
};

const DIALECTS: Record<"sqlite" | "postgres", Dialect> = {
  sqlite: {
    param: () => "?",
    epochSeconds: (sql) => `unixepoch(${sql}, 'subsec')`,
    jsonText: (column, key) => `json_extract(${column}, '$.${key}')`,
  },
  postgres: {
    param: (n) => `$${n}`,
    epochSeconds: (sql) => `EXTRACT(EPOCH FROM ${sql})::float8`,
    jsonText: (column, key) => `(${column}::json ->> '${key}')`,
  },
};

export const dialectOf = (db: Db): Dialect => DIALECTS[providerOfDb(db)];

/** Bound values and their placeholders (SQLite's `?` cannot be reused: each use binds again). */
export class Params {
  readonly values: unknown[] = [];
  constructor(private readonly dialect: Dialect) {}
  add(value: unknown): string {
    this.values.push(value);
    return this.dialect.param(this.values.length);
  }
}

/** `'A', 'B'` for a list of this code's own constants. */
export const sqlList = (values: readonly string[]) => values.map((v) => `'${v.replaceAll("'", "''")}'`).join(", ");

/** One cumulative count per bound: SUM(CASE WHEN x <= bound …) AS b0, b1, … */
export const bucketColumns = (expression: string, bounds: readonly number[]) =>
  bounds.map((bound, i) => `SUM(CASE WHEN ${expression} <= ${bound} THEN 1 ELSE 0 END) AS b${i}`).join(", ");

/** A COUNT or SUM from either driver (bigint, numeric text from node-pg, null for an empty SUM) as a number. */
export const num = (value: unknown): number => (value === null || value === undefined ? 0 : Number(value));

/** The b0…bN columns of a row as numbers. */
export const bucketsOf = (row: Record<string, unknown>, bounds: readonly number[]) =>
  bounds.map((_, i) => num(row[`b${i}`]));

/** The statuses of runs not yet ended. */
export const NOT_ENDED = RUN_STATUSES.filter((s) => !TERMINAL_STATUSES.includes(s));

/**
 * The runs a window's activity can belong to: created within it, or not yet ended (index ranges on Run).
 * `changedWithin`: of the runs not yet ended, only those changed within the window (updatedAt, read from
 * rows the status index already found): a run parked since before it made no commit in it.
 */
export function windowRunsSql(p: Params, since: Date, opts: { changedWithin?: boolean } = {}): string {
  return `SELECT "id", "agentSlug" FROM "Run" WHERE "createdAt" >= ${p.add(since)}
    UNION SELECT "id", "agentSlug" FROM "Run" WHERE "status" IN (${sqlList(NOT_ENDED)})${opts.changedWithin ? ` AND "updatedAt" >= ${p.add(since)}` : ""}`;
}
