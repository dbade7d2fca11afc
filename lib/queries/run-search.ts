// The runs list's text search: the runs whose input contains the text, ignoring case, found through the
// search index (lib/store/search-index.ts) rather than by reading every input. Raw SQL because Prisma can
// express neither an FTS5 MATCH nor a case-insensitive LIKE on SQLite; the list's other filters and its
// keyset (createdAt DESC, id DESC) are applied in the same statements, so paging holds. It answers a
// page of run ids; run-list.ts reads their columns by key.
//
// What matches, on both databases: the text as typed, anywhere in the input's JSON text, ignoring case —
// SQLite's LIKE and Postgres' ILIKE, with LIKE's own % _ \ escaped. (SQLite's LIKE folds the case of
// ASCII letters only; Postgres folds every letter its locale knows: "É" finds "é" there, not on SQLite.)
//
// Neither planner can be trusted to know how common the text is among the runs a page needs (SQLite has
// no statistics for an FTS5 table; Postgres' walk down the createdAt index, stopping after a page, reads
// every run when the matches are all old ones). So two steps, each bounded:
// 1. the newest DENSE_WINDOW runs that pass the filters are checked one by one (a millisecond or so):
//    common text fills the page there, and that page is exact;
// 2. otherwise the index finds every match — the FTS5 table (its trigram phrase folds case as LIKE does
//    and more, so it finds every run LIKE would; LIKE then checks them) or Postgres' trigram index — and
//    the matches are sorted: text that is rare among the newest runs has few matches to sort. Postgres
//    is told not to read the whole table instead: its estimate misses that ILIKE costs about 2 µs a row
//    (it folds the case of the whole input), so for text in one run of ten it picks a 200 ms table scan
//    over a 40 ms index scan (100,000 runs).
// Text shorter than 3 characters has no trigram to look up. Step 1 is the same, and short text matches
// most inputs, so it usually ends there; otherwise step 2 reads every run once, in table order (cheaper
// than the createdAt index's random reads), and sorts the matches: a full scan, the one search that
// grows with the table (about 60 ms for 100,000 runs on SQLite here).
import { activeWorkspace } from "@/lib/workspaces/scope";
import { providerOfDb, type Db } from "@/lib/db";
import { Prisma } from "@/lib/generated/sqlite/client";
import type { RunStatus } from "@/lib/runtime/types";
import { RUN_SEARCH_TABLE } from "@/lib/store/search-index";

/** The fewest characters the trigram index can look up. */
export const MIN_INDEXED_SEARCH_CHARS = 3;
/** How many of the newest runs are checked before the index is asked. */
const DENSE_WINDOW = 2_000;

export type RunSearch = {
  text: string;
  status?: RunStatus;
  agent?: string;
  version?: string;
  cursor?: { createdAt: Date; id: string };
  /** Set from the active workspace by findRunIdsByInputText. */
  workspaceId?: string | null;
};

const isIndexable = (text: string) => [...text].length >= MIN_INDEXED_SEARCH_CHARS;

/** The text as a LIKE pattern that matches it literally anywhere (its own % _ and \ escaped with \). */
const containsPattern = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** The text as one FTS5 phrase: inside double quotes everything is literal but the quote, which is doubled. */
const ftsPhrase = (text: string) => `"${text.replaceAll('"', '""')}"`;

const searchTable = Prisma.raw(`"${RUN_SEARCH_TABLE}"`);
const newestFirst = Prisma.sql`ORDER BY "createdAt" DESC, "id" DESC`;

function contains(db: Db, text: string): Prisma.Sql {
  return providerOfDb(db) === "postgres"
    ? Prisma.sql`"input" ILIKE ${containsPattern(text)} ESCAPE '\\'`
    : Prisma.sql`"input" LIKE ${containsPattern(text)} ESCAPE '\\'`;
}

/** The list's filters and its keyset, without the text. */
function filterConditions(search: RunSearch): Prisma.Sql[] {
  const { status, agent, version, cursor, workspaceId } = search;
  return [
    // Raw SQL is not scoped by lib/workspaces/scope.ts: the workspace's condition is written here.
    ...(workspaceId ? [Prisma.sql`"workspaceId" = ${workspaceId}`] : []),
    ...(status ? [Prisma.sql`"status" = ${status}`] : []),
    ...(agent ? [Prisma.sql`"agentSlug" = ${agent}`] : []),
    ...(agent && version ? [Prisma.sql`"agentVersion" = ${version}`] : []),
    // As in run-list.ts: the redundant `<=` gives the planner a range on the createdAt index.
    ...(cursor
      ? [Prisma.sql`"createdAt" <= ${cursor.createdAt} AND ("createdAt" < ${cursor.createdAt} OR "id" < ${cursor.id})`]
      : []),
  ];
}

const where = (conditions: Prisma.Sql[]) =>
  conditions.length > 0 ? Prisma.sql`WHERE ${Prisma.join(conditions, " AND ")}` : Prisma.empty;

/** Step 1: the newest DENSE_WINDOW runs that pass the filters, checked one by one. */
const newestWindowSql = (db: Db, search: RunSearch, take: number) => Prisma.sql`
  SELECT "id" FROM (SELECT "id", "createdAt", "input" FROM "Run" ${where(filterConditions(search))} ${newestFirst} LIMIT ${DENSE_WINDOW}) AS newest
  WHERE ${contains(db, search.text)} ${newestFirst} LIMIT ${take}`;

/** Step 2: every match, found through the index, then sorted (a materialized CTE keeps Postgres from walking instead). */
function indexedSql(db: Db, search: RunSearch, take: number): Prisma.Sql {
  const filters = filterConditions(search);
  if (providerOfDb(db) === "postgres") {
    return Prisma.sql`WITH matches AS MATERIALIZED (SELECT "id", "createdAt" FROM "Run" ${where([contains(db, search.text), ...filters])})
      SELECT "id" FROM matches ${newestFirst} LIMIT ${take}`;
  }
  const found = Prisma.sql`"rowid" IN (SELECT "rowid" FROM ${searchTable} WHERE ${searchTable} MATCH ${ftsPhrase(search.text)})`;
  return Prisma.sql`SELECT "id" FROM "Run" ${where([found, contains(db, search.text), ...filters])} ${newestFirst} LIMIT ${take}`;
}

/** Step 2 for short text: every run that passes the filters read once, the matches sorted. */
function scanSql(db: Db, search: RunSearch, take: number): Prisma.Sql {
  const matching = where([contains(db, search.text), ...filterConditions(search)]);
  if (providerOfDb(db) === "postgres")
    return Prisma.sql`WITH matches AS MATERIALIZED (SELECT "id", "createdAt" FROM "Run" ${matching}) SELECT "id" FROM matches ${newestFirst} LIMIT ${take}`;
  // The unary + keeps SQLite from walking the createdAt index for the order.
  return Prisma.sql`SELECT "id" FROM "Run" ${matching} ORDER BY +"createdAt" DESC, "id" DESC LIMIT ${take}`;
}

/** The statement that asks the search index (exported so tests can EXPLAIN it). */
export const runSearchSql = indexedSql;

type IdRow = { id: string };

async function findIndexedMatches(db: Db, search: RunSearch, take: number): Promise<IdRow[]> {
  if (providerOfDb(db) !== "postgres") return db.$queryRaw<IdRow[]>(indexedSql(db, search, take));
  // For this statement's transaction only (is_local): the index, not a table scan; and no JIT compilation,
  // which a plan priced with the table scan ruled out would otherwise trigger (100 ms to compile).
  const [, rows] = await db.$transaction([
    db.$queryRawUnsafe("SELECT set_config('enable_seqscan', 'off', true), set_config('jit', 'off', true)"),
    db.$queryRaw<IdRow[]>(indexedSql(db, search, take)),
  ]);
  return rows;
}

/** Ids of the runs whose input contains the text, with the other filters, after the cursor, newest first. */
export async function findRunIdsByInputText(db: Db, unscoped: RunSearch, take: number): Promise<string[]> {
  const search = { ...unscoped, workspaceId: await activeWorkspace() };
  const ids = (rows: IdRow[]) => rows.map((row) => row.id);
  const newest = ids(await db.$queryRaw<IdRow[]>(newestWindowSql(db, search, take)));
  if (newest.length === take) return newest;
  return ids(
    isIndexable(search.text)
      ? await findIndexedMatches(db, search, take)
      : await db.$queryRaw<IdRow[]>(scanSql(db, search, take)),
  );
}
