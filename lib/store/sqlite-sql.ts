import type { StepCommit } from "@/lib/runtime/store";
import type { Row, Statement } from "./rows";

// How the store writes a SQLite statement (the statements themselves live with their capability:
// steps.ts, leases.ts). Why raw: SQLite is in-process, so there are no round trips to save, but Prisma
// compiles every model query with its WASM query compiler on every call (no plan cache); raw statements
// halve the cost of a commit. A step's commit runs them on the connection under Prisma's adapter, in a
// transaction of its own (lib/sqlite-statements.ts); the other raw statements go through Prisma's. SQLite's
// single writer serializes them: none of the concurrency care of the Postgres statements is needed here.
// DateTime: @prisma/adapter-better-sqlite3 binds a Date parameter of a raw query exactly as it binds a
// model query's (ISO text with "+00:00"), and the step's commit binds as it does (sqliteValue), so Prisma's
// own reads parse what is written here. Nothing from the caller is spliced into the SQL text: values are bound.

export const columns = (row: Row) =>
  Object.keys(row)
    .map((c) => `"${c}"`)
    .join(", ");
export const placeholders = (n: number) => Array.from({ length: n }, () => "?").join(", ");
export const assignments = (row: Row) =>
  Object.keys(row)
    .map((c) => `"${c}" = ?`)
    .join(", ");
export const inList = (values: readonly unknown[]) => `(${placeholders(values.length)})`;

/** Rows of one shape, a few hundred a statement (SQLite caps bound values). */
export function chunkedInsert(table: string, rows: Row[]): Statement[] {
  const statements: Statement[] = [];
  for (let i = 0; i < rows.length; i += 500) {
    const chunk = rows.slice(i, i + 500);
    statements.push({
      sql: `INSERT INTO "${table}" (${columns(chunk[0])}) VALUES ${chunk.map((r) => `(${placeholders(Object.keys(r).length)})`).join(", ")}`,
      values: chunk.flatMap((r) => Object.values(r)),
    });
  }
  return statements;
}

export function insert(table: string, row: Row): Statement {
  return {
    sql: `INSERT INTO "${table}" (${columns(row)}) VALUES (${placeholders(Object.keys(row).length)})`,
    values: Object.values(row),
  };
}

export function updateById(table: string, id: string, changes: Row): Statement {
  return {
    sql: `UPDATE "${table}" SET ${assignments(changes)} WHERE "id" = ?`,
    values: [...Object.values(changes), id],
  };
}

/** The lease fence of every write made under a lease, and its values. */
export const fence = `"id" = ? AND "leaseOwner" = ? AND "leaseEpoch" = ?`;
export const fenceValues = (lease: StepCommit["lease"]) => [lease.runId, lease.owner, lease.epoch];
