// `tether import`: a backup file (lib/backup/format.ts) into this deployment's database, in two passes.
// The first reads the whole file and checks every line — the header, each row's table, columns and values
// against this database's schema, that rows follow their run, no key twice, the end line's counts — and
// refuses the file at the first bad line, naming it, before anything is written. The second writes each
// run with its rows in one transaction. A run whose id is already here is skipped whole (its rows are
// never merged into the copy here): importing the same file twice changes nothing the second time.
import { providerOfDb, type Db } from "@/lib/db";
import { AppError } from "@/lib/runtime/errors";
import type { Tx } from "@/lib/store/records";
import {
  BACKUP_FORMAT,
  BACKUP_TABLES,
  READABLE_VERSIONS,
  SHARED_TABLES,
  decodeValue,
  delegateOf,
  isBackupTable,
  rowKey,
  scalarColumns,
  type BackupTable,
  type ScalarType,
} from "./format";

/** Opens the file again at each call: the lines, without their line breaks. */
export type BackupSource = () => AsyncIterable<string>;

export type ImportReport = {
  runs: { imported: number; skipped: number; skippedIds: string[]; differing: string[] };
  /** Rows written, by table. */
  written: Partial<Record<BackupTable, number>>;
  /** Rows already here (agent versions, audit rows) or under a skipped run, by table. */
  skipped: Partial<Record<BackupTable, number>>;
};

/** A file refused: `line` is the 1-based line it was refused at. */
export class BackupFileError extends AppError {
  readonly line: number;
  constructor(line: number, problem: string) {
    super("INVALID_INPUT", { message: `line ${line}: ${problem}` });
    this.line = line;
  }
}

type Schema = Record<BackupTable, { types: Map<string, ScalarType>; notNull: Set<string>; required: Set<string> }>;
type Parsed = { kind: "header" } | { kind: "end" } | { kind: "row"; table: BackupTable; data: Record<string, unknown> };

const TABLES = Object.keys(BACKUP_TABLES) as BackupTable[];
/** Tables keyed under their run: their keys are checked for repeats within the run's rows only. */
const UNDER_RUN: ReadonlySet<BackupTable> = new Set(["Checkpoint", "StateEntry", "TraceEvent"]);
const BATCH = 500;

export async function importBackup(db: Db, source: BackupSource): Promise<ImportReport> {
  const schema = await readSchema(db);
  await validateBackup(db, source, schema);
  return writeBackup(db, source, schema);
}

/** Every line checked; throws BackupFileError at the first bad one. Writes nothing. */
export async function validateBackup(
  db: Db,
  source: BackupSource,
  schema?: Schema,
): Promise<{ rows: number; runs: number }> {
  const tables = schema ?? (await readSchema(db));
  let lineNo = 0;
  let rows = 0;
  let runs = 0;
  let ended = false;
  let run: { id: string; packets: Set<string>; keys: Set<string> } | null = null;
  const keys = new Set<string>();
  for await (const text of source()) {
    lineNo++;
    if (lineNo > 1 && text.trim() === "") continue;
    if (ended) throw new BackupFileError(lineNo, "a line after the end line");
    const parsed = parseLine(text, lineNo, tables);
    if (parsed.kind === "header") continue;
    if (parsed.kind === "end") {
      const end = (JSON.parse(text) as { end: { rows?: unknown; runs?: unknown } }).end;
      if (end.rows !== rows || end.runs !== runs)
        throw new BackupFileError(
          lineNo,
          `the end line counts ${String(end.rows)} rows and ${String(end.runs)} runs, the file has ${rows} and ${runs}`,
        );
      ended = true;
      continue;
    }
    const { table, data } = parsed;
    rows++;
    const key = `${table}:${rowKey(table, data)}`;
    const seen = UNDER_RUN.has(table) ? run?.keys : keys;
    if (seen?.has(key)) throw new BackupFileError(lineNo, `${table} ${rowKey(table, data)} appears twice`);
    seen?.add(key);
    if (table === "Run") {
      runs++;
      run = { id: data.id as string, packets: new Set(), keys: new Set() };
      await checkRunFits(db, data, lineNo);
      continue;
    }
    if (SHARED_TABLES.has(table)) {
      run = null; // a run's rows are over
      if (table === "Workspace") await checkWorkspaceFits(db, data, lineNo);
      continue;
    }
    if (!run) throw new BackupFileError(lineNo, `a ${table} row before any run: a run's rows follow its Run line`);
    if (table === "PacketApproval") {
      if (!run.packets.has(data.packetId as string))
        throw new BackupFileError(
          lineNo,
          `an approval of packet ${String(data.packetId)}, which is not among run ${run.id}'s packets above it`,
        );
    } else if (table !== "AuditLog" && data.runId !== run.id) {
      throw new BackupFileError(
        lineNo,
        `a ${table} of run ${String(data.runId)} among the rows of run ${run.id}: a run's rows follow its Run line`,
      );
    }
    if (table === "DecisionPacket") run.packets.add(data.id as string);
  }
  if (lineNo === 0) throw new BackupFileError(1, "the file is empty");
  if (!ended) throw new BackupFileError(lineNo, "the file ends without its end line: it was cut short");
  return { rows, runs };
}

/** A run that is not here yet must not collide with one that is (its idempotency key is unique). */
async function checkRunFits(db: Db, data: Record<string, unknown>, lineNo: number) {
  if (typeof data.idempotencyKey !== "string") return;
  const holder = await db.run.findFirst({
    where: {
      workspaceId: typeof data.workspaceId === "string" ? data.workspaceId : "default",
      idempotencyKey: data.idempotencyKey,
    },
    select: { id: true },
  });
  if (holder && holder.id !== data.id) {
    throw new BackupFileError(
      lineNo,
      `run ${String(data.id)} has idempotency key "${data.idempotencyKey}", which run ${holder.id} already holds in this database`,
    );
  }
}

/** A workspace that is not here yet must not take a slug another workspace here has (its URLs would be ambiguous). */
async function checkWorkspaceFits(db: Db, data: Record<string, unknown>, lineNo: number) {
  const holder = await db.workspace.findUnique({ where: { slug: String(data.slug) }, select: { id: true } });
  if (holder && holder.id !== data.id) {
    throw new BackupFileError(
      lineNo,
      `workspace ${String(data.id)} is called "${String(data.slug)}", which workspace ${holder.id} is already called in this database`,
    );
  }
}

/** One line: the header (line 1 only), a row (decoded for this database) or the end line. */
function parseLine(text: string, lineNo: number, schema: Schema): Parsed {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new BackupFileError(lineNo, `not JSON (${(error as Error).message})`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new BackupFileError(lineNo, "not a JSON object");
  const line = value as Record<string, unknown>;
  if (lineNo === 1) {
    if (line.format !== BACKUP_FORMAT)
      throw new BackupFileError(
        1,
        `not a Tether backup (the first line must be its header, with "format": "${BACKUP_FORMAT}")`,
      );
    if (typeof line.version !== "number" || !READABLE_VERSIONS.includes(line.version)) {
      throw new BackupFileError(
        1,
        `backup format version ${String(line.version)} is not one this Tether reads (${READABLE_VERSIONS.join(", ")}): upgrade Tether first`,
      );
    }
    return { kind: "header" };
  }
  if ("end" in line) {
    const end = line.end as { rows?: unknown; runs?: unknown } | null;
    if (typeof end !== "object" || end === null || typeof end.rows !== "number" || typeof end.runs !== "number")
      throw new BackupFileError(lineNo, "an end line without its row and run counts");
    return { kind: "end" };
  }
  if (!isBackupTable(line.table))
    throw new BackupFileError(
      lineNo,
      `unknown table ${JSON.stringify(line.table)} (a backup holds ${TABLES.join(", ")})`,
    );
  const table = line.table;
  const row = line.row;
  if (typeof row !== "object" || row === null || Array.isArray(row))
    throw new BackupFileError(lineNo, `a ${table} line without its row object`);
  const { types, notNull, required } = schema[table];
  const data: Record<string, unknown> = {};
  for (const [column, raw] of Object.entries(row)) {
    const type = types.get(column);
    if (!type)
      throw new BackupFileError(
        lineNo,
        `${table} has no column "${column}" in this database (the file comes from a newer schema: upgrade this deployment first)`,
      );
    if (raw === null && notNull.has(column))
      throw new BackupFileError(lineNo, `${table}.${column} is null, and this database requires a value`);
    try {
      const decoded = decodeValue(type, raw);
      // A null JSON column is left out: it stays NULL (Prisma wants a marker, not null, to write one).
      if (!(decoded === null && type === "Json")) data[column] = decoded;
    } catch (error) {
      throw new BackupFileError(lineNo, `${table}.${column}: ${(error as Error).message}`);
    }
  }
  for (const column of [...required, ...BACKUP_TABLES[table].key]) {
    if (data[column] === undefined || data[column] === null)
      throw new BackupFileError(lineNo, `${table} row without "${column}", which this database requires`);
  }
  return { kind: "row", table, data };
}

/** Each table's columns (from the client) and which of them this database requires (from its catalog). */
export async function readSchema(db: Db): Promise<Schema> {
  const isPostgres = providerOfDb(db) === "postgres";
  const entries = await Promise.all(
    TABLES.map(async (table) => {
      const sql = isPostgres
        ? `SELECT column_name::text AS name, (is_nullable = 'NO') AS "notNull", (column_default IS NOT NULL) AS "hasDefault" FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = '${table}'`
        : `SELECT name, "notnull" AS "notNull", (dflt_value IS NOT NULL) AS "hasDefault" FROM pragma_table_info('${table}')`;
      const columns = await db.$queryRawUnsafe<Array<{ name: string; notNull: unknown; hasDefault: unknown }>>(sql);
      const notNull = new Set(columns.filter((c) => truthy(c.notNull)).map((c) => c.name));
      const required = new Set(columns.filter((c) => truthy(c.notNull) && !truthy(c.hasDefault)).map((c) => c.name));
      return [table, { types: scalarColumns(db, table), notNull, required }] as const;
    }),
  );
  return Object.fromEntries(entries) as Schema;
}

// SQLite answers 0/1 (as a number or a BigInt), Postgres a boolean.
const truthy = (value: unknown) => value === true || value === 1 || value === 1n;

/** The second pass: the file is known to be good. */
async function writeBackup(db: Db, source: BackupSource, schema: Schema): Promise<ImportReport> {
  const report: ImportReport = {
    runs: { imported: 0, skipped: 0, skippedIds: [], differing: [] },
    written: {},
    skipped: {},
  };
  const count = (into: Partial<Record<BackupTable, number>>, table: BackupTable, n: number) => {
    if (n > 0) into[table] = (into[table] ?? 0) + n;
  };
  const rows = peekable(rowsOf(source, schema));
  /** The rows after a Run line up to the next Run, Workspace or AgentVersion line. */
  async function* runRows() {
    for (
      let next = await rows.peek();
      next && next.table !== "Run" && !SHARED_TABLES.has(next.table);
      next = await rows.peek()
    )
      yield (await rows.next())!;
  }
  for (let row = await rows.next(); row; row = await rows.next()) {
    if (row.table === "Workspace") {
      // A workspace already here keeps its name and people; a new one arrives empty of members (admins add them).
      const existing = await db.workspace.findUnique({ where: { id: row.data.id as string }, select: { id: true } });
      if (existing) count(report.skipped, "Workspace", 1);
      else count(report.written, "Workspace", (await db.workspace.createMany({ data: [row.data as never] })).count);
      continue;
    }
    if (row.table === "AgentVersion") {
      const { slug, version } = row.data as { slug: string; version: string };
      const existing = await db.agentVersion.findUnique({
        where: { slug_version: { slug, version } },
        select: { slug: true },
      });
      // A version already recorded here keeps its record (lib/agents/versions.ts): it is never rewritten.
      if (existing) count(report.skipped, "AgentVersion", 1);
      else
        count(report.written, "AgentVersion", (await db.agentVersion.createMany({ data: [row.data as never] })).count);
      continue;
    }
    const run = row.data;
    const existing = await db.run.findUnique({
      where: { id: run.id as string },
      select: { updatedAt: true, eventSeq: true },
    });
    if (existing) {
      report.runs.skipped++;
      report.runs.skippedIds.push(run.id as string);
      if (existing.updatedAt.getTime() !== (run.updatedAt as Date).getTime() || existing.eventSeq !== run.eventSeq)
        report.runs.differing.push(run.id as string);
      count(report.skipped, "Run", 1);
      for await (const child of runRows()) count(report.skipped, child.table, 1);
      continue;
    }
    let written: Partial<Record<BackupTable, number>>;
    try {
      written = await db.$transaction(
        async (tx) => {
          const done: Partial<Record<BackupTable, number>> = {};
          let batch: { table: BackupTable; data: Array<Record<string, unknown>> } = { table: "Run", data: [run] };
          const flush = async () => {
            if (batch.data.length > 0)
              done[batch.table] = (done[batch.table] ?? 0) + (await insertNew(tx, batch.table, batch.data));
          };
          for await (const child of runRows()) {
            if (child.table !== batch.table || batch.data.length >= BATCH) {
              await flush();
              batch = { table: child.table, data: [] };
            }
            batch.data.push(child.data);
          }
          await flush();
          return done;
        },
        { maxWait: 60_000, timeout: 10 * 60_000 },
      );
    } catch (error) {
      // The checks passed, yet the database refused the run (a constraint the file cannot know about): this
      // run was rolled back; the ones before it are in, and a second import skips them.
      throw new AppError("CONFLICT", {
        message:
          `run ${String(run.id)} (line ${row.line}) could not be written, nothing of it was: ${(error as Error).message}. ` +
          `${report.runs.imported} run(s) before it were imported (a second import skips them); it and the runs after it were not.`,
        cause: error,
      });
    }
    report.runs.imported++;
    for (const [table, n] of Object.entries(written) as Array<[BackupTable, number]>) count(report.written, table, n);
  }
  return report;
}

/** Inserts the rows; audit rows already here (they outlive a deleted run) are left as they are. Returns how many were written. */
async function insertNew(tx: Tx, table: BackupTable, data: Array<Record<string, unknown>>): Promise<number> {
  let fresh = data;
  if (table === "AuditLog") {
    const here = new Set(
      (
        await tx.auditLog.findMany({ where: { id: { in: data.map((r) => r.id as string) } }, select: { id: true } })
      ).map((r) => r.id),
    );
    fresh = data.filter((r) => !here.has(r.id as string));
  }
  if (fresh.length === 0) return 0;
  return (await delegateOf(tx, table).createMany({ data: fresh })).count;
}

async function* rowsOf(
  source: BackupSource,
  schema: Schema,
): AsyncGenerator<{ table: BackupTable; data: Record<string, unknown>; line: number }> {
  let lineNo = 0;
  for await (const text of source()) {
    lineNo++;
    if (lineNo > 1 && text.trim() === "") continue;
    const parsed = parseLine(text, lineNo, schema);
    if (parsed.kind === "row") yield { ...parsed, line: lineNo };
  }
}

function peekable<T>(iterable: AsyncIterable<T>) {
  const iterator = iterable[Symbol.asyncIterator]();
  let held: { value: T | undefined } | undefined;
  const pull = async () => {
    const r = await iterator.next();
    return r.done ? undefined : r.value;
  };
  return {
    async peek(): Promise<T | undefined> {
      held ??= { value: await pull() };
      return held.value;
    },
    async next(): Promise<T | undefined> {
      if (held) {
        const { value } = held;
        held = undefined;
        return value;
      }
      return pull();
    },
  };
}
