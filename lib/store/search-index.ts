// The runs list's text search index over Run.input, made outside Prisma's migrations: `migrate dev`
// reports an FTS5 virtual table, its triggers and a trigram index as drift (prisma/prisma#8106), so they
// are not in the schema. Every set-up applies them after `prisma migrate deploy` (scripts/setup.ts; the
// test and bench databases are made by that script too), and applying them again changes nothing.
// Both find an input by a case-insensitive substring of at least 3 characters (lib/queries/run-search.ts):
// - SQLite: an FTS5 table with the trigram tokenizer over Run.input, its content read from Run itself
//   (external content: the text is not stored twice), kept in step by triggers. It addresses a run by
//   its rowid, which SQLite's VACUUM keeps (it copies a table whole, rowids included). A migration that
//   rebuilds the Run table (Prisma's "redefine table" on SQLite) drops the triggers with it and assigns
//   new rowids: missing triggers are that signal, and the index is then rebuilt from the table.
// - Postgres: a GIN trigram index (pg_trgm) on Run.input, which serves ILIKE '%…%'. It is created
//   without CONCURRENTLY: set-up runs before the console and the workers start.
import { providerOfDb, type Db } from "@/lib/db";

/** The FTS5 table that indexes Run.input on SQLite. */
export const RUN_SEARCH_TABLE = "RunInputSearch";
/** The trigram index on Run.input on Postgres. */
export const RUN_SEARCH_INDEX = "Run_input_trgm_idx";

const TRIGGERS = {
  insert: "Run_input_search_insert",
  update: "Run_input_search_update",
  delete: "Run_input_search_delete",
};

// FTS5's external content protocol: a row leaves the index through the 'delete' command with its old text.
const removeOld = `INSERT INTO "${RUN_SEARCH_TABLE}"("${RUN_SEARCH_TABLE}", rowid, "input") VALUES ('delete', old.rowid, old."input");`;
const addNew = `INSERT INTO "${RUN_SEARCH_TABLE}"(rowid, "input") VALUES (new.rowid, new."input");`;

/** One statement each, in order, in one transaction: a run written meanwhile is indexed by the rebuild or by a trigger. */
const SQLITE_STATEMENTS = [
  `CREATE VIRTUAL TABLE IF NOT EXISTS "${RUN_SEARCH_TABLE}" USING fts5("input", content='Run', content_rowid='rowid', tokenize='trigram')`,
  // A new index, or triggers lost with a rebuilt Run table: index every run as it is now.
  `INSERT INTO "${RUN_SEARCH_TABLE}"("${RUN_SEARCH_TABLE}") SELECT 'rebuild'
     WHERE (SELECT COUNT(*) FROM sqlite_master WHERE type = 'trigger' AND name IN ('${TRIGGERS.insert}', '${TRIGGERS.update}', '${TRIGGERS.delete}')) < 3`,
  `CREATE TRIGGER IF NOT EXISTS "${TRIGGERS.insert}" AFTER INSERT ON "Run" BEGIN ${addNew} END`,
  // Only a write to the input column fires it: the engine's writes to a run (every step) do not.
  `CREATE TRIGGER IF NOT EXISTS "${TRIGGERS.update}" AFTER UPDATE OF "input" ON "Run" BEGIN ${removeOld} ${addNew} END`,
  `CREATE TRIGGER IF NOT EXISTS "${TRIGGERS.delete}" AFTER DELETE ON "Run" BEGIN ${removeOld} END`,
];

const POSTGRES_STATEMENTS = [
  // pg_trgm is a trusted extension: the database's owner may create it without being a superuser.
  `CREATE EXTENSION IF NOT EXISTS pg_trgm`,
  `CREATE INDEX IF NOT EXISTS "${RUN_SEARCH_INDEX}" ON "Run" USING gin ("input" gin_trgm_ops)`,
];

/** Creates the search index when it is missing (and rebuilds it on SQLite when its triggers were lost); idempotent. */
export async function ensureSearchIndex(db: Db): Promise<void> {
  const statements = providerOfDb(db) === "postgres" ? POSTGRES_STATEMENTS : SQLITE_STATEMENTS;
  await db.$transaction(statements.map((sql) => db.$executeRawUnsafe(sql)));
}
