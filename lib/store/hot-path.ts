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

/** A Date goes as UTC text: node-pg would send local time with an offset, which `::timestamp` drops. */
const toParam = (value: unknown) => (value instanceof Date ? value.toISOString() : value);

export type HotQuery = <T>(statement: Statement) => Promise<T[]>;

export function hotQuery(db: Db): HotQuery {
  const pool = poolOf(db);
  if (!pool) return <T>(s: Statement) => db.$queryRawUnsafe<T[]>(s.sql, ...s.values);
  return async <T>(s: Statement) => (await pool.query({ text: s.sql, values: s.values.map(toParam), types })).rows as T[];
}
