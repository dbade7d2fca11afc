// The backup file (docs/backup.md): JSON Lines. The first line is a header naming the format and its
// version, then one line per row — {"table": "Run", "row": {…}} — with every row after the rows it
// depends on, and a last line counting the rows, so a file cut short is told from a whole one.
//
// Which tables a run's backup holds, in the order they are written, is decided here; which columns a
// row holds is not: every scalar column the database has flows through (a column added to the schema
// travels without touching this file). Values are written in a form both databases read back the same:
// dates as ISO strings (millisecond precision on both), BigInt and Decimal as decimal strings, bytes as
// base64, JSON columns as JSON, booleans as booleans (SQLite's 0/1 never reaches the file).
import type { Db } from "@/lib/db";

export const BACKUP_FORMAT = "tether-backup";
// 2: Workspace rows (a version 1 file has none: its runs go into workspaces of the same id, as before).
export const BACKUP_VERSION = 2;
/** The versions this code reads. A newer file is refused rather than half understood. */
export const READABLE_VERSIONS: readonly number[] = [1, 2];

export type BackupHeader = {
  format: typeof BACKUP_FORMAT;
  version: number;
  exportedAt: string;
  since: string | null;
  database: string;
};
export type RowLine = { table: BackupTable; row: Record<string, unknown> };
export type EndLine = { end: { rows: number; runs: number } };

/**
 * The tables a backup holds, in the order a run's rows are written. `key` identifies a row (a re-import
 * recognises it); `parent` is the row this one cannot exist without, which comes earlier in the file.
 * - Workspace: the workspace a run belongs to, so that its people can open it where it is imported; written
 *   once, before the first run in it; on import kept as it is when its id is here, refused when its slug
 *   names another workspace here. Memberships are not exported: people are the deployment's.
 * - AgentVersion: the version a run is pinned to, so its page shows the instructions that shaped it;
 *   written once, before the first run that needs it; never rewritten on import.
 * - AuditLog: the console's audit rows whose target is the run or one of its packets (no foreign key:
 *   they outlive a deleted run).
 * Left out on purpose: notification deliveries (an outbox tied to this deployment's channels and their
 * secrets), decision links (bound to this deployment's users and signing secret), the sandbox world.
 */
export const BACKUP_TABLES = {
  Workspace: { key: ["id"] },
  AgentVersion: { key: ["slug", "version"] },
  Run: { key: ["id"] },
  Checkpoint: { key: ["runId", "seq"], parent: { column: "runId", table: "Run" } },
  StateEntry: { key: ["runId", "seq"], parent: { column: "runId", table: "Run" } },
  TraceEvent: { key: ["runId", "seq"], parent: { column: "runId", table: "Run" } },
  EffectIntent: { key: ["id"], parent: { column: "runId", table: "Run" } },
  DecisionPacket: { key: ["id"], parent: { column: "runId", table: "Run" } },
  PacketApproval: { key: ["packetId", "approver"], parent: { column: "packetId", table: "DecisionPacket" } },
  Signal: { key: ["id"], parent: { column: "runId", table: "Run" } },
  AuditLog: { key: ["id"] },
} as const satisfies Record<string, { key: readonly string[]; parent?: { column: string; table: string } }>;

export type BackupTable = keyof typeof BACKUP_TABLES;
/** Rows written once before the first run that needs them, never under a run. */
export const SHARED_TABLES: ReadonlySet<BackupTable> = new Set(["Workspace", "AgentVersion"]);
export const isBackupTable = (name: unknown): name is BackupTable =>
  typeof name === "string" && Object.hasOwn(BACKUP_TABLES, name);

/** Prisma's scalar types (the runtime data model's names). */
export type ScalarType = "String" | "Int" | "BigInt" | "Float" | "Decimal" | "Boolean" | "DateTime" | "Json" | "Bytes";

type RuntimeDataModel = { models: Record<string, { fields: Array<{ name: string; kind: string; type: string }> }> };

/**
 * A table's scalar columns and their types, as the client generated from the schema knows them. Prisma 6.19's
 * client keeps its data model on the instance (`_runtimeDataModel`, not a public API): if an upgrade moves it,
 * this throws and tests/backup.int.test.ts fails, rather than a backup silently losing columns.
 */
export function scalarColumns(db: Db, table: BackupTable): Map<string, ScalarType> {
  const model = (db as unknown as { _runtimeDataModel?: RuntimeDataModel })._runtimeDataModel?.models[table];
  if (!model) throw new Error(`the Prisma client has no model ${table}`);
  return new Map(model.fields.filter((f) => f.kind === "scalar").map((f) => [f.name, f.type as ScalarType]));
}

/** A table's model delegate (db.run, db.traceEvent, …), for a client or a transaction. */
export type Delegate = {
  findMany(args: object): Promise<Array<Record<string, unknown>>>;
  findFirst(args: object): Promise<Record<string, unknown> | null>;
  createMany(args: { data: Array<Record<string, unknown>> }): Promise<{ count: number }>;
};
export function delegateOf(db: object, table: BackupTable): Delegate {
  return (db as Record<string, Delegate>)[table[0].toLowerCase() + table.slice(1)];
}

/** A value as the file holds it (see the file's comment). */
export function encodeValue(value: unknown): unknown {
  if (value instanceof Date) return value.toISOString();
  if (typeof value === "bigint") return value.toString();
  if (value instanceof Uint8Array) return Buffer.from(value).toString("base64");
  if (typeof value === "number" && !Number.isFinite(value)) return String(value); // NaN, ±Infinity: not JSON
  // Prisma's Decimal (decimal.js): its exact decimal text.
  if (
    typeof value === "object" &&
    value !== null &&
    (value as { constructor?: { name?: string } }).constructor?.name === "Decimal"
  )
    return String(value);
  return value;
}

const ISO_DATE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;
const INTEGER = /^-?\d+$/;
const DECIMAL = /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const INT32 = { min: -(2 ** 31), max: 2 ** 31 - 1 };

/** A value of the file as the column's type wants it; throws a message (no line number) when it is not one. */
export function decodeValue(type: ScalarType, value: unknown): unknown {
  if (value === null) return null;
  const wrong = (expected: string) => new Error(`expected ${expected}, got ${JSON.stringify(value)?.slice(0, 60)}`);
  switch (type) {
    case "String":
      if (typeof value !== "string") throw wrong("a string");
      return value;
    case "Int":
      if (typeof value !== "number" || !Number.isInteger(value) || value < INT32.min || value > INT32.max)
        throw wrong("a 32-bit integer");
      return value;
    case "BigInt":
      if (typeof value === "number" && Number.isSafeInteger(value)) return BigInt(value);
      if (typeof value !== "string" || !INTEGER.test(value)) throw wrong("an integer (as a decimal string)");
      return BigInt(value);
    case "Float":
      if (typeof value === "number") return value;
      if (value === "NaN" || value === "Infinity" || value === "-Infinity") return Number(value);
      throw wrong("a number");
    case "Decimal":
      if (typeof value === "number" && Number.isFinite(value)) return String(value);
      if (typeof value !== "string" || !DECIMAL.test(value)) throw wrong("a decimal number (as a string)");
      return value;
    case "Boolean":
      if (typeof value !== "boolean") throw wrong("true or false");
      return value;
    case "DateTime": {
      if (typeof value !== "string" || !ISO_DATE.test(value) || Number.isNaN(Date.parse(value)))
        throw wrong("an ISO 8601 date-time");
      return new Date(value);
    }
    case "Json":
      return value;
    case "Bytes":
      if (typeof value !== "string" || !BASE64.test(value)) throw wrong("base64 text");
      return Buffer.from(value, "base64");
    default:
      throw new Error(`a column of type ${String(type)} cannot be restored`);
  }
}

/** A row's identity, for reports and duplicate checks: its key columns' values. */
export const rowKey = (table: BackupTable, row: Record<string, unknown>) =>
  BACKUP_TABLES[table].key.map((c) => String(row[c])).join("/");
