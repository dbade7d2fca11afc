import { createHash } from "node:crypto";
import pg from "pg";
import { poolOf, type Db } from "@/lib/db";
import type { Statement } from "./rows";

// The runtime's hot statements (claim, heartbeat, release, step commit, permission rules) on Postgres go
// straight to the pg pool that Prisma's adapter also uses (lib/db.ts), not through $queryRawUnsafe.
// Why: measured here, one small statement costs ≈ 5 ms of CPU through Prisma's client engine (request
// encoding, the query interpreter, result decoding) and ≈ 0.4 ms on the pool; a worker's CPU is what
// bounds its steps per second. Prisma keeps the schema, the migrations and every other query.
// On SQLite (in-process, one writer) the statements stay inside Prisma's connection and transactions.

const TIMESTAMP_OID = 1114; // timestamp(3) without time zone: the columns hold UTC (as Prisma writes them)
const parseUtc = (text: string) => new Date(`${text.replace(" ", "T")}Z`);
const types = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    oid === TIMESTAMP_OID ? parseUtc : pg.types.getTypeParser(oid, format as "text")) as typeof pg.types.getTypeParser,
};

/**
 * A Date goes as UTC text: node-pg would send local time with an offset, which `::timestamp` drops. An
 * array of strings goes as a binary text[] (textArray), any other array as Postgres's array literal (arrayLiteral).
 */
export const toParam = (value: unknown) =>
  value instanceof Date
    ? value.toISOString()
    : Array.isArray(value)
      ? (textArray(value) ?? arrayLiteral(value))
      : value;

const TEXT_OID = 25;

/**
 * An array with a string in it, and nothing but strings and nulls, in Postgres's binary array format
 * (array_recv: dimensions, flags, element type, then each element's length and UTF-8 bytes): a step's
 * commit sends its events and state entries as text arrays, a tool's ~1 KB result twice among them, and
 * a text literal must escape every `"` and `\` of that JSON (≈ 19 µs a step) where the binary format
 * copies the bytes (≈ 4 µs). node-pg sends a Buffer parameter in binary. Every statement casts such a parameter to
 * text[] (`$n::text[]`): Postgres refuses binary elements of another type than the parameter's. Postgres
 * checks the bytes as it checks text (a NUL is refused); a lone surrogate becomes U+FFFD as in any
 * string node-pg sends. Null: not such an array (numbers, an empty array, only nulls).
 */
export function textArray(values: unknown[]): Buffer | null {
  let hasText = false;
  let hasNull = false;
  let bytes = 20; // ndim, flags, element type, then the dimension's length and lower bound
  for (const v of values) {
    if (typeof v === "string") {
      hasText = true;
      bytes += 4 + Buffer.byteLength(v);
    } else if (v == null) {
      hasNull = true;
      bytes += 4;
    } else return null;
  }
  if (!hasText) return null;
  const out = Buffer.allocUnsafe(bytes);
  out.writeInt32BE(1, 0); // one dimension
  out.writeInt32BE(hasNull ? 1 : 0, 4);
  out.writeInt32BE(TEXT_OID, 8);
  out.writeInt32BE(values.length, 12);
  out.writeInt32BE(1, 16); // lower bound
  let at = 20;
  for (const v of values) {
    if (typeof v === "string") {
      const length = out.write(v, at + 4, "utf8");
      out.writeInt32BE(length, at);
      at += 4 + length;
    } else {
      out.writeInt32BE(-1, at);
      at += 4;
    }
  }
  return out;
}

/** What JSON.stringify writes as a \uXXXX escape (a control character, a lone surrogate), which an array literal reads as "u". */
const ESCAPED_BY_JSON = /[\u0000-\u001f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * An array as Postgres's array literal, `{"a","b\"c",null,1}`, written by JSON.stringify (native) where
 * node-pg escapes each element with two regular-expression passes: for the arrays textArray leaves (the
 * int[] of a commit's event steps). Postgres reads the same array from both for null, finite numbers and
 * strings that JSON writes without a \uXXXX escape (it escapes `"` and `\` as an array literal does); any
 * other array is left to node-pg.
 */
export function arrayLiteral(values: unknown[]): unknown {
  for (const v of values) {
    if (v == null || (typeof v === "number" && Number.isFinite(v))) continue;
    if (typeof v !== "string" || ESCAPED_BY_JSON.test(v)) return values;
  }
  return `{${JSON.stringify(values).slice(1, -1)}}`;
}

export type HotQuery = <T>(statement: Statement) => Promise<T[]>;

/**
 * Each statement is prepared once per connection (named by a hash of its text): the server parses
 * and plans a step's commit — a chain of CTEs — once, not on every step. The texts are few: they vary
 * with the shape of a commit (intent, packet, events…), never with its values.
 */
const names = new Map<string, string>();
let generation = 0;
function nameOf(sql: string): string {
  let name = names.get(sql);
  if (!name)
    names.set(sql, (name = `tether_${generation}_${createHash("sha1").update(sql).digest("hex").slice(0, 16)}`));
  return name;
}

/** A migration that changed a table under a prepared statement: Postgres refuses the old plan once. */
const isStalePlan = (error: unknown) => (error as { code?: string })?.code === "0A000";

export function hotQuery(db: Db): HotQuery {
  const pool = poolOf(db);
  if (!pool) return <T>(s: Statement) => db.$queryRawUnsafe<T[]>(s.sql, ...s.values);
  const run = async <T>(s: Statement) =>
    (await pool.query({ name: nameOf(s.sql), text: s.sql, values: s.values.map(toParam), types })).rows as T[];
  return async <T>(s: Statement) => {
    try {
      return await run<T>(s);
    } catch (error) {
      if (!isStalePlan(error)) throw error;
      generation++; // prepare every statement again, under new names
      names.clear();
      return run<T>(s);
    }
  };
}

/**
 * A transaction on one pooled connection, with the same statements (prepared, UTC timestamps): for
 * the few changes that need several statements under one commit (a person's decision). Null on SQLite.
 */
export type HotTransaction = <T>(work: (query: HotQuery) => Promise<T>) => Promise<T>;

export function hotTransaction(db: Db): HotTransaction | null {
  const pool = poolOf(db);
  if (!pool) return null;
  return async (work) => {
    const client = await pool.connect();
    try {
      await client.query("BEGIN");
      const result = await work(
        async <T>(s: Statement) =>
          (await client.query({ name: nameOf(s.sql), text: s.sql, values: s.values.map(toParam), types })).rows as T[],
      );
      await client.query("COMMIT");
      return result;
    } catch (error) {
      await client.query("ROLLBACK").catch(() => {});
      throw error;
    } finally {
      client.release();
    }
  };
}
