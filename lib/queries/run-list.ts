// The runs list: filters, search and keyset paging over the Run table. Reads Prisma directly (a query
// module) so a page selects only the columns it shows, and so bench/ and tests can pass their own client.
//
// No state is read: a run's state grows with its steps, and the list shows one number of it. The step
// comes from the run's latest checkpoint (its step column, found by primary key: runId + stateSeq),
// in one query for the page. A run the engine found unreadable says so in its error (the store sets it
// aside as FAILED with "unreadable state: …"); a state that breaks while nobody loads it is found when
// its page is opened, not by the list.
//
// Paging is keyset on (createdAt DESC, id DESC): the Run(createdAt) index serves the order and the range,
// and the id breaks ties between runs created in the same millisecond. A deep page costs what the first
// page costs; an offset would read and throw away every row before it.
//
// A search is a run id prefix (the primary key serves it) or text in the input, found through the search
// index by run-search.ts, which answers the page's ids; their columns are then read by key.
import type { Db } from "@/lib/db";
import type { Prisma } from "@/lib/generated/sqlite/client";
import { RUN_STATUSES, type RunStatus } from "@/lib/runtime/types";
import { findRunIdsByInputText } from "./run-search";

export const RUN_LIST_PAGE_SIZE = 50;

/** `version` narrows `agent` to the runs pinned to one of its versions (the admin agents page links there). */
export type RunListFilter = { status?: RunStatus; agent?: string; version?: string; q?: string; cursor?: string };

export type RunListItem = {
  id: string;
  agentSlug: string;
  agentVersion: string;
  status: RunStatus;
  /** The step of the latest checkpoint; null when the run has none. */
  step: number | null;
  error: string | null;
  parentRunId: string | null;
  /** A child run: the run whose step started it. */
  spawnedByRunId: string | null;
  createdAt: Date;
  updatedAt: Date;
  /** The engine could not read the stored state (bad JSON, unknown schema version) and set the run aside: listed, flagged. */
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
// and in Postgres' C collation).
const idPrefixWhere = (q: string) => ({ id: { gte: q, lt: `${q}\uffff` } });

function whereOf(filter: RunListFilter, idPrefix: string | undefined) {
  const cursor = decodeRunCursor(filter.cursor);
  return {
    AND: [
      filter.status ? { status: filter.status } : {},
      filter.agent ? { agentSlug: filter.agent, ...(filter.version ? { agentVersion: filter.version } : {}) } : {},
      idPrefix ? idPrefixWhere(idPrefix) : {},
      // The redundant `lte` gives the planner a range on the createdAt index; the OR alone makes SQLite scan from the top.
      cursor
        ? {
            createdAt: { lte: cursor.createdAt },
            OR: [{ createdAt: { lt: cursor.createdAt } }, { id: { lt: cursor.id } }],
          }
        : {},
    ],
  };
}

/** The columns the list shows (no state, no input: the search filters on input without reading it back). */
export const runListSelect = {
  id: true,
  agentSlug: true,
  agentVersion: true,
  status: true,
  stateSeq: true,
  error: true,
  parentRunId: true,
  spawnedByRunId: true,
  createdAt: true,
  updatedAt: true,
} satisfies Prisma.RunSelect;

/** What the store writes into run.error when it sets aside a run whose state it cannot load (lib/store quarantine). */
const UNREADABLE_STATE_ERROR = "unreadable state: ";

const stateErrorOf = (error: string | null) =>
  error?.startsWith(UNREADABLE_STATE_ERROR) ? { stateError: error.slice(UNREADABLE_STATE_ERROR.length) } : {};

/**
 * The step of each run's latest checkpoint (runId, seq = the run's stateSeq), in one query on the primary
 * key: runId IN (page) AND seq IN (their stateSeqs), the exact pairs kept. (An OR of 50 pairs costs Prisma
 * more to build than the database to answer; the cross product reads at most page² tiny rows.)
 */
async function latestSteps(db: Db, runs: Array<{ id: string; stateSeq: number }>): Promise<Map<string, number>> {
  if (runs.length === 0) return new Map();
  const wanted = new Map(runs.map((r) => [r.id, r.stateSeq]));
  const rows = await db.checkpoint.findMany({
    where: { runId: { in: [...wanted.keys()] }, seq: { in: [...new Set(wanted.values())] } },
    select: { runId: true, seq: true, step: true },
  });
  return new Map(rows.filter((r) => wanted.get(r.runId) === r.seq).map((r) => [r.runId, r.step]));
}

const newestFirst = [{ createdAt: "desc" }, { id: "desc" }] satisfies Prisma.RunOrderByWithRelationInput[];

/** The page's rows plus one (it says whether a next page exists), newest first. */
async function findRows(db: Db, filter: RunListFilter, take: number) {
  const q = normalizeRunSearch(filter.q);
  if (!q || looksLikeRunId(q))
    return db.run.findMany({ where: whereOf(filter, q), orderBy: newestFirst, take, select: runListSelect });
  const ids = await findRunIdsByInputText(
    db,
    {
      text: q,
      status: filter.status,
      agent: filter.agent,
      version: filter.version,
      cursor: decodeRunCursor(filter.cursor),
    },
    take,
  );
  return db.run.findMany({ where: { id: { in: ids } }, orderBy: newestFirst, select: runListSelect });
}

export async function findRunList(db: Db, filter: RunListFilter, pageSize = RUN_LIST_PAGE_SIZE): Promise<RunListPage> {
  const rows = await findRows(db, filter, pageSize + 1);
  const page = rows.slice(0, pageSize);
  const steps = await latestSteps(db, page);
  const runs = page.map(({ stateSeq: _stateSeq, ...row }): RunListItem => ({
    ...row,
    status: row.status as RunStatus,
    step: steps.get(row.id) ?? null,
    ...stateErrorOf(row.error),
  }));
  return { runs, nextCursor: rows.length > pageSize ? encodeRunCursor(page[page.length - 1]) : null };
}
