// The decision history: every decided packet, the latest decision first, filtered by reviewer, tool,
// decision and a range of days; read a page at a time (the history page) or in batches (the CSV export).
// Reads Prisma directly (a query module) and takes the client as a parameter, so the tests run it on
// both databases.
//
// Decided means decidedAt is set: the store writes it in the same update that moves a packet out of
// PENDING, for every decided status (APPROVED … STALE, which keeps its approval's time). Filtering on the
// column the order runs on, rather than on status IN (…), keeps the planner on the (decidedAt, id) index:
// a list of statuses tempts SQLite into a status index and a sort of every decided packet.
//
// Paging is keyset on (decidedAt DESC, id DESC), as the runs list does (lib/queries/run-list.ts): a deep
// page costs what the first one costs, and decisions made while someone pages never shift a page. Each
// filter has an index whose columns end in decidedAt — (decidedBy, decidedAt), (tool, decidedAt) and, for
// the decision filter, (status, decidedAt) — so a filtered page reads one range in order and stops.
//
// Reviewer: a person matches the packets on which they made the deciding call (decidedBy): the approval
// that completed it, or the rejection, edit or redirect; `policy:expiry` for an expired one. Those who
// approved a four-eyes packet before the deciding approval are listed with it (approvers) but do not
// match: finding them means reading every approval the person ever made (no index orders approvals by
// their packet's decidedAt), some 20,000 rows for a busy reviewer at 100,000 packets — 75-150 ms on
// SQLite where the decidedBy index answers in one short range.
import { z } from "zod";
import type { Db } from "@/lib/db";
import { Prisma } from "@/lib/generated/sqlite/client";
import { DECIDED_PACKET_STATUSES, type DecisionPacket, type RunStatus } from "@/lib/runtime/types";
import { packetInclude, toPacket } from "@/lib/store/records";
import { blankIsAbsent, firstParam, parseFilterParams, type SearchParams } from "./search-params";

export const HISTORY_PAGE_SIZE = 25;
export const DECIDED_STATUSES = DECIDED_PACKET_STATUSES;
export type DecidedStatus = (typeof DECIDED_STATUSES)[number];

/** The trace events shown after each decision ("what the run did next"). */
const NEXT_EVENTS = 5;
/** Events of the decision itself: not what the run did next. */
const DECISION_EVENT_TYPES = ["gate.decided", "gate.approval_recorded"];

export type HistoryEntry = {
  packet: DecisionPacket;
  /** How long the packet waited for its decision. */
  waitedMs: number | null;
  run: { status: RunStatus; agent: string };
  /** What the run did after the decision: its first trace events from then on. */
  next: Array<{ seq: number; type: string; at: Date }>;
};

// ---- the filter

/** `from` and `to` are inclusive days in UTC (YYYY-MM-DD); `cursor` is opaque (see encodeHistoryCursor). */
export type DecisionHistoryFilter = {
  reviewer?: string;
  tool?: string;
  decision?: DecidedStatus;
  from?: string;
  to?: string;
  cursor?: string;
};

const isCalendarDay = (day: string) => {
  const date = new Date(`${day}T00:00:00.000Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(day);
};
const filterFields = {
  reviewer: blankIsAbsent(z.string().trim().max(320)),
  tool: blankIsAbsent(z.string().trim().max(200)),
  decision: blankIsAbsent(z.enum(DECIDED_STATUSES)),
  from: blankIsAbsent(
    z
      .string()
      .regex(/^\d{4}-\d{2}-\d{2}$/, "Use YYYY-MM-DD.")
      .refine(isCalendarDay, "Not a date."),
  ),
  to: blankIsAbsent(
    z
      .string()
      .regex(/^\d{4}-\d{2}-\d{2}$/, "Use YYYY-MM-DD.")
      .refine(isCalendarDay, "Not a date."),
  ),
};
type FilterField = keyof typeof filterFields;
const FILTER_FIELDS = Object.keys(filterFields) as FilterField[];
const isRangeReversed = (f: { from?: string; to?: string }) => Boolean(f.from && f.to && f.to < f.from);

/** The filter as the CSV export takes it: strict (an audit must not silently export more than was asked). */
export const decisionHistoryQuerySchema = z
  .object(filterFields)
  .refine((f) => !isRangeReversed(f), { path: ["to"], message: "The end of the range is before its start." });

/**
 * The filter from the page's search params, forgiving: a value that does not parse is dropped (that
 * filter is off) and named in `ignored`, so the page can say so instead of failing. A `to` before
 * `from` is dropped too. A cursor that does not decode opens the first page.
 */
export function parseDecisionHistoryParams(params: SearchParams): {
  filter: DecisionHistoryFilter;
  ignored: FilterField[];
} {
  const parsed = parseFilterParams(filterFields, params);
  const filter: DecisionHistoryFilter = parsed.filter;
  const { ignored } = parsed;
  if (isRangeReversed(filter)) {
    delete filter.to;
    ignored.push("to");
  }
  const cursor = firstParam(params.cursor);
  if (decodeHistoryCursor(cursor)) filter.cursor = cursor;
  return { filter, ignored };
}

export const isFilterActive = (filter: DecisionHistoryFilter) =>
  FILTER_FIELDS.some((field) => filter[field] !== undefined);

/** The filter as search params (what parseDecisionHistoryParams reads back): links keep the filter, the export link too. */
export function toDecisionHistorySearchParams(filter: DecisionHistoryFilter): URLSearchParams {
  const params = new URLSearchParams();
  for (const field of [...FILTER_FIELDS, "cursor"] as const) {
    const value = filter[field];
    if (value) params.set(field, value);
  }
  return params;
}

// ---- the cursor

/** Older: the entries after this one in the list (further down); newer: those before it. */
type Direction = "older" | "newer";
type Cursor = { direction: Direction; decidedAt: Date; id: string };

/** "o<ms>.<id>" or "n<ms>.<id>": opaque to the browser, stable while new decisions arrive at the top. */
export function encodeHistoryCursor(direction: Direction, entry: { decidedAt: Date | null; id: string }): string {
  return `${direction === "older" ? "o" : "n"}${entry.decidedAt!.getTime()}.${entry.id}`;
}

export function decodeHistoryCursor(value: string | undefined): Cursor | undefined {
  const match = value?.match(/^([on])(\d{1,15})\.(.{1,200})$/);
  return match
    ? { direction: match[1] === "o" ? "older" : "newer", decidedAt: new Date(Number(match[2])), id: match[3] }
    : undefined;
}

// ---- the queries

const DAY_MS = 86_400_000;
const startOfDay = (day: string) => new Date(`${day}T00:00:00.000Z`);

type DateBounds = { gte?: Date; lte?: Date; lt?: Date };
// Any bound excludes a null decidedAt; with none, IS NOT NULL does (SQLite serves it as an index range too).
const decidedAtRange = (bounds: DateBounds): Prisma.DecisionPacketWhereInput => ({
  decidedAt: Object.values(bounds).some(Boolean) ? bounds : { not: null },
});

/**
 * The days filter and the cursor as one range on decidedAt, so the planner gets the tightest bounds: given
 * two upper (or two lower) bounds on a column, SQLite may walk from the looser one. The id breaks ties
 * at the cursor's millisecond; a cursor outside the range (a range narrowed while paging) leaves it whole.
 */
function decidedAtWhere(filter: DecisionHistoryFilter, cursor: Cursor | undefined): Prisma.DecisionPacketWhereInput {
  const from = filter.from ? startOfDay(filter.from) : undefined; // inclusive
  const until = filter.to ? new Date(startOfDay(filter.to).getTime() + DAY_MS) : undefined; // exclusive: the day after `to`
  if (cursor?.direction === "older" && !(until && until <= cursor.decidedAt)) {
    return {
      ...decidedAtRange({ gte: from, lte: cursor.decidedAt }),
      OR: [{ decidedAt: { lt: cursor.decidedAt } }, { id: { lt: cursor.id } }],
    };
  }
  if (cursor?.direction === "newer" && !(from && from > cursor.decidedAt)) {
    return {
      ...decidedAtRange({ gte: cursor.decidedAt, lt: until }),
      OR: [{ decidedAt: { gt: cursor.decidedAt } }, { id: { gt: cursor.id } }],
    };
  }
  return decidedAtRange({ gte: from, lt: until });
}

function whereOf(filter: DecisionHistoryFilter, cursor: Cursor | undefined): Prisma.DecisionPacketWhereInput {
  return {
    AND: [
      decidedAtWhere(filter, cursor),
      filter.decision ? { status: filter.decision } : {},
      filter.tool ? { tool: filter.tool } : {},
      filter.reviewer ? { decidedBy: filter.reviewer } : {},
    ],
  };
}

const historyInclude = {
  ...packetInclude,
  run: { select: { status: true, agentSlug: true } },
} satisfies Prisma.DecisionPacketInclude;
type HistoryRow = Prisma.DecisionPacketGetPayload<{ include: typeof historyInclude }>;

/** Up to `take` rows past the cursor in list order (newest first); for a "newer" cursor, the `take` just above it. */
async function findRows(
  db: Db,
  filter: DecisionHistoryFilter,
  cursor: Cursor | undefined,
  take: number,
): Promise<HistoryRow[]> {
  const sort = cursor?.direction === "newer" ? "asc" : "desc";
  const rows = await db.decisionPacket.findMany({
    where: whereOf(filter, cursor),
    include: historyInclude,
    orderBy: [{ decidedAt: sort }, { id: sort }],
    take,
  });
  return sort === "asc" ? rows.reverse() : rows;
}

/**
 * What each packet's run did after its decision: its first NEXT_EVENTS trace events from the decision
 * on, for the whole page in one statement (a window per packet; a run has at most a few hundred events).
 * Raw SQL because Prisma has no "first n per group"; the SQL is the same on SQLite and Postgres, and it
 * compares dates column to column, so neither database's date encoding matters.
 */
async function findNextEvents(db: Db, packetIds: string[]): Promise<Map<string, HistoryEntry["next"]>> {
  if (packetIds.length === 0) return new Map();
  const rows = await db.$queryRaw<Array<{ packetId: string; seq: number | bigint; type: string; at: Date }>>`
    SELECT "packetId", "seq", "type", "at" FROM (
      SELECT p."id" AS "packetId", e."seq", e."type", e."at", ROW_NUMBER() OVER (PARTITION BY p."id" ORDER BY e."seq") AS "rank"
      FROM "DecisionPacket" p JOIN "TraceEvent" e ON e."runId" = p."runId" AND e."at" >= p."decidedAt"
      WHERE p."id" IN (${Prisma.join(packetIds)}) AND e."type" NOT IN (${Prisma.join(DECISION_EVENT_TYPES)})
    ) ranked
    WHERE "rank" <= ${NEXT_EVENTS}
    ORDER BY "packetId", "seq"`;
  const next = new Map<string, HistoryEntry["next"]>();
  for (const row of rows) {
    const events = next.get(row.packetId) ?? [];
    events.push({ seq: Number(row.seq), type: row.type, at: new Date(row.at) });
    next.set(row.packetId, events);
  }
  return next;
}

function toHistoryEntry(row: HistoryRow, next: HistoryEntry["next"] = []): HistoryEntry {
  const packet = toPacket(row);
  return {
    packet,
    waitedMs: packet.decidedAt ? packet.decidedAt.getTime() - packet.createdAt.getTime() : null,
    run: { status: row.run.status as RunStatus, agent: row.run.agentSlug },
    next,
  };
}

export type DecisionHistoryPage = {
  entries: HistoryEntry[];
  /** The next page down the list (older decisions), or null at the end. */
  olderCursor: string | null;
  /** The page above (newer decisions), or null on the first page. */
  newerCursor: string | null;
};

/** One page of the filtered history, newest first; `filter.cursor` says where the page starts. */
export async function findDecisionHistory(
  db: Db,
  filter: DecisionHistoryFilter,
  pageSize = HISTORY_PAGE_SIZE,
): Promise<DecisionHistoryPage> {
  const cursor = decodeHistoryCursor(filter.cursor);
  const rows = await findRows(db, filter, cursor, pageSize + 1);
  // Paging up reached the top: show the first page (a full one) rather than the few entries left.
  if (cursor?.direction === "newer" && rows.length <= pageSize)
    return findDecisionHistory(db, { ...filter, cursor: undefined }, pageSize);
  const hasMore = rows.length > pageSize;
  const page = cursor?.direction === "newer" ? rows.slice(-pageSize) : rows.slice(0, pageSize);
  const next = await findNextEvents(
    db,
    page.map((row) => row.id),
  );
  const entries = page.map((row) => toHistoryEntry(row, next.get(row.id)));
  const [first, last] = [page[0], page.at(-1)];
  return {
    entries,
    olderCursor: last && (cursor?.direction === "newer" || hasMore) ? encodeHistoryCursor("older", last) : null,
    newerCursor:
      first && cursor && (cursor.direction === "older" || hasMore) ? encodeHistoryCursor("newer", first) : null,
  };
}

/**
 * Every entry of the filtered history, newest first, read in keyset batches of `batchSize`: memory
 * holds one batch however long the history (the CSV export streams it). No "next events": an export
 * lists decisions.
 */
export async function* iterateDecisionHistory(
  db: Db,
  filter: Omit<DecisionHistoryFilter, "cursor">,
  batchSize = 500,
): AsyncGenerator<HistoryEntry> {
  let cursor: Cursor | undefined;
  for (;;) {
    const rows = await findRows(db, filter, cursor, batchSize);
    for (const row of rows) yield toHistoryEntry(row);
    if (rows.length < batchSize) return;
    const last = rows[rows.length - 1];
    cursor = { direction: "older", decidedAt: last.decidedAt!, id: last.id };
  }
}

// ---- the CSV export (lib/csv.ts escapes and streams it)

export const DECISION_HISTORY_CSV_HEADER = [
  "packetId",
  "runId",
  "agent",
  "tool",
  "kind",
  "decision",
  "decidedBy",
  "approvers",
  "decidedAt",
  "createdAt",
  "waitedMs",
  "reason",
  "instruction",
  "impact",
] as const;

/** One entry as a CSV record, in the header's order; approvers are separated by spaces (an email has none). */
export function toDecisionHistoryCsvRecord({ packet, run, waitedMs }: HistoryEntry): unknown[] {
  return [
    packet.id,
    packet.runId,
    run.agent,
    packet.tool,
    packet.kind,
    packet.status,
    packet.decidedBy,
    packet.approvers.join(" "),
    packet.decidedAt,
    packet.createdAt,
    waitedMs,
    packet.decision?.reason,
    packet.decision?.instruction,
    packet.content.impact,
  ];
}

export async function* findDecisionHistoryCsvRecords(
  db: Db,
  filter: Omit<DecisionHistoryFilter, "cursor">,
): AsyncGenerator<unknown[]> {
  for await (const entry of iterateDecisionHistory(db, filter)) yield toDecisionHistoryCsvRecord(entry);
}
