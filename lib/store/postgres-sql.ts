import type { StepCommit } from "@/lib/runtime/store";
import type { Row } from "./rows";
import type { NewEntry } from "./state-entries";

// How the store writes a Postgres statement (the statements themselves live with their capability:
// runs.ts, steps.ts, leases.ts).
//
// Why raw SQL on the hot path: through Prisma's client engine every model query is compiled by the WASM
// query compiler (no plan cache), and an interactive $transaction on Postgres is BEGIN + one round trip
// per statement + COMMIT. A write made of ONE statement (a chain of data-modifying CTEs) is one round
// trip, and atomic by itself.
//
// These builders only produce text + bound values; hot-path.ts runs them on the pg pool. Nothing from
// the caller is ever spliced into the SQL text: every value is a parameter, with an explicit cast so
// Postgres never has to guess a type (a null has none). Column names and types:
// prisma/postgres/migrations (timestamps are TIMESTAMP(3) holding UTC; JSON documents are TEXT).

export type PgType = "text" | "int" | "timestamp(3)" | "text[]" | "int[]";

/** The non-text columns the raw statements write (prisma/postgres/migrations); every other one is TEXT. */
const COLUMN_TYPES: Record<string, PgType> = {
  seq: "int",
  step: "int",
  attempt: "int",
  requiredApprovals: "int",
  version: "int",
  stateSeq: "int",
  eventSeq: "int",
  entrySeq: "int",
  runnableAt: "timestamp(3)",
  at: "timestamp(3)",
  createdAt: "timestamp(3)",
  completedAt: "timestamp(3)",
  expiresAt: "timestamp(3)",
  usedAt: "timestamp(3)",
  decidedAt: "timestamp(3)",
  consumedAt: "timestamp(3)",
  wakeAt: "timestamp(3)",
  leaseExpiresAt: "timestamp(3)",
  updatedAt: "timestamp(3)",
  impactRank: "int",
  changedAt: "timestamp(3)",
  spawnedAtStep: "int",
};
export const columnType = (column: string): PgType => COLUMN_TYPES[column] ?? "text";

/** Collects bound values; `add` returns the placeholder, e.g. `$3::text`. */
export class Params {
  readonly values: unknown[] = [];
  add(value: unknown, type: PgType): string {
    this.values.push(value === undefined ? null : value);
    return `$${this.values.length}::${type}`;
  }
}

/**
 * Params for a statement whose text is built once per shape and run many times (a step's commit): `add`
 * takes how to read the value from what the statement runs with; `values` reads them all, in order.
 */
export class Slots<V> {
  private readonly getters: Array<(of: V) => unknown> = [];
  add(get: (of: V) => unknown, type: PgType): string {
    this.getters.push(get);
    return `$${this.getters.length}::${type}`;
  }
  values(of: V): unknown[] {
    return this.getters.map((get) => get(of) ?? null);
  }
}

/** INSERT of one row that happens only when the run's fenced update did (SELECT … FROM head), given its columns and their placeholders, in the same order. */
export function insertFromHeadSql(table: string, columns: string[], placeholders: string[], fromHead: string[] = []) {
  const names = [...columns, ...fromHead].map((c) => `"${c}"`).join(", ");
  const values = [...placeholders, ...fromHead.map((c) => `head."${c}"`)].join(", ");
  return `INSERT INTO "${table}" (${names}) SELECT ${values} FROM head`;
}

/** The state's new entries (state-entries.ts), numbered from `base` + 1, inserted only when `source` has a row. */
export function insertEntries(p: Params, entries: NewEntry[], runId: string, source: string, base: string): string {
  const textColumn = (of: (entry: NewEntry) => unknown) => p.add(entries.map(of), "text[]");
  const columns = {
    kinds: textColumn((e) => e.kind),
    keys: textColumn((e) => e.key),
    values: textColumn((e) => e.value),
  };
  return insertEntriesSql(columns, runId, source, base);
}

/** insertEntries' text, given the placeholders of its three text[] columns. */
export function insertEntriesSql(
  columns: { kinds: string; keys: string; values: string },
  runId: string,
  source: string,
  base: string,
): string {
  return `INSERT INTO "StateEntry" ("runId", "seq", "kind", "key", "value")
      SELECT ${runId}, ${base} + e.n::int, e.kind, e.key, e.value
      FROM ${source}, unnest(${columns.kinds}, ${columns.keys}, ${columns.values})
        WITH ORDINALITY AS e(kind, key, value, n)`;
}

/** Trace events (step, type, data as JSON text), numbered from `base` + 1, inserted only when `source` has a row. */
export function insertEvents(p: Params, rows: Row[], runId: string, source: string, base: string, at: string): string {
  const column = (of: (row: Row) => unknown, type: PgType) => p.add(rows.map(of), type);
  const columns = {
    steps: column((r) => r.step, "int[]"),
    types: column((r) => r.type, "text[]"),
    data: column((r) => r.data, "text[]"),
  };
  return insertEventsSql(columns, runId, source, base, at);
}

/** insertEvents' text, given the placeholders of its int[] and two text[] columns. */
export function insertEventsSql(
  columns: { steps: string; types: string; data: string },
  runId: string,
  source: string,
  base: string,
  at: string,
): string {
  return `INSERT INTO "TraceEvent" ("runId", "seq", "step", "type", "data", "at")
      SELECT ${runId}, ${base} + e.n::int, e.step, e.type, e.data, ${at}
      FROM ${source}, unnest(${columns.steps}, ${columns.types}, ${columns.data})
        WITH ORDINALITY AS e(step, type, data, n)`;
}

/** The lease fence of every write made under a lease. */
export function fence(p: Params, lease: StepCommit["lease"]): string {
  return fenceSql(p.add(lease.runId, "text"), p.add(lease.owner, "text"), p.add(lease.epoch, "int"));
}

/** fence's text, given the placeholders of the run's id, the lease's owner and its epoch. */
export const fenceSql = (runId: string, owner: string, epoch: string) =>
  `"Run"."id" = ${runId} AND "Run"."leaseOwner" = ${owner} AND "Run"."leaseEpoch" = ${epoch}`;
