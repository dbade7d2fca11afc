// The runs list: filters, search and keyset paging over the Run table. Reads Prisma directly (a query
// module) so a page selects only the columns it shows, and so bench/ and tests can pass their own client.
//
// Paging is keyset on (createdAt DESC, id DESC): the Run(createdAt) index serves the order and the range,
// and the id breaks ties between runs created in the same millisecond. A deep page costs what the first
// page costs; an offset would read and throw away every row before it.
import type { Db } from "@/lib/db";
import { loadState } from "@/lib/runtime/state";
import { RUN_STATUSES, type RunStatus } from "@/lib/runtime/types";

export const RUN_LIST_PAGE_SIZE = 50;

/** `version` narrows `agent` to the runs pinned to one of its versions (the admin agents page links there). */
export type RunListFilter = { status?: RunStatus; agent?: string; version?: string; q?: string; cursor?: string };

export type RunListItem = {
  id: string;
  agentSlug: string;
  agentVersion: string;
  status: RunStatus;
  step: number | null;
  error: string | null;
  parentRunId: string | null;
  createdAt: Date;
  updatedAt: Date;
  /** The stored state could not be read (bad JSON, unknown schema version): listed, flagged. */
  stateError?: string;
};

export type RunListPage = { runs: RunListItem[]; nextCursor: string | null };

type Cursor = { createdAt: Date; id: string };

/** "<ms>.<id>": opaque to the browser, stable across new runs arriving at the top. */
export function encodeRunCursor(run: Cursor): string {
  return `${run.createdAt.getTime()}.${run.id}`;
}

export function decodeRunCursor(value: string | undefined): Cursor | undefined {
  const match = value?.match(/^(\d{1,15})\.(.{1,200})$/);
  return match ? { createdAt: new Date(Number(match[1])), id: match[2] } : undefined;
}

export function parseRunStatusFilter(value: string | undefined): RunStatus | undefined {
  return RUN_STATUSES.find((status) => status === value);
}

/** Trimmed search text, or undefined when there is nothing to search for. */
export function normalizeRunSearch(value: string | undefined): string | undefined {
  const text = value?.trim().slice(0, 200);
  return text ? text : undefined;
}

/** Run ids look like run_<letters and digits>: such a search is a prefix of the id, anything else text in the input. */
export const looksLikeRunId = (q: string) => /^run_[A-Za-z0-9_-]*$/.test(q);

// A prefix as a range (not LIKE 'q%'), so the primary key index serves it on both databases (byte order in SQLite
// and in Postgres' C collation). Input text has no index to use: it is a scan, bounded by the page size.
// SQLite's LIKE is case-insensitive for ASCII, Postgres' is not: the search matches the case typed on Postgres.
function searchWhere(q: string) {
  return looksLikeRunId(q) ? { id: { gte: q, lt: `${q}\uffff` } } : { input: { contains: q } };
}

function whereOf(filter: RunListFilter) {
  const cursor = decodeRunCursor(filter.cursor);
  const q = normalizeRunSearch(filter.q);
  return {
    AND: [
      filter.status ? { status: filter.status } : {},
      filter.agent ? { agentSlug: filter.agent, ...(filter.version ? { agentVersion: filter.version } : {}) } : {},
      q ? searchWhere(q) : {},
      // The redundant `lte` gives the planner a range on the createdAt index; the OR alone makes SQLite scan from the top.
      cursor ? { createdAt: { lte: cursor.createdAt }, OR: [{ createdAt: { lt: cursor.createdAt } }, { id: { lt: cursor.id } }] } : {},
    ],
  };
}

function stepOf(stateText: string): { step: number | null; stateError?: string } {
  try {
    return { step: loadState(stateText).step };
  } catch (error) {
    return { step: null, stateError: error instanceof Error ? error.message : String(error) };
  }
}

export async function findRunList(db: Db, filter: RunListFilter, pageSize = RUN_LIST_PAGE_SIZE): Promise<RunListPage> {
  const rows = await db.run.findMany({
    where: whereOf(filter),
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: pageSize + 1,
    select: { id: true, agentSlug: true, agentVersion: true, status: true, state: true, error: true, parentRunId: true, createdAt: true, updatedAt: true },
  });
  const page = rows.slice(0, pageSize);
  const runs = page.map(({ state, ...row }): RunListItem => ({ ...row, status: row.status as RunStatus, ...stepOf(state) }));
  return { runs, nextCursor: rows.length > pageSize ? encodeRunCursor(page[page.length - 1]) : null };
}
