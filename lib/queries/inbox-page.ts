// The inbox, sorted, filtered and paged in the database: a reviewer working a queue of thousands sees
// every packet in it, page after page, and a true total for the filter ("50 of 2,000 in attention").
//
// Order keys are SQL expressions over stored columns (impactRank and capability are written with the
// packet, lib/store/rows.ts), computed against one `now` that the cursor carries, so the pages of one
// walk agree even as the clock moves. Every order is ascending over its keys, the id last:
//   urgency: -score, expiry, created, id      impact: -impactRank, expiry, created, id
//   expiry:  expiry, created, id               age:    created, id
// The score is urgencyScore's in SQL; tests/support/inbox-oracle.ts is the in-memory model the tests hold
// these queries to.
// The keyset condition is a row-value comparison (SQLite ≥ 3.15, Postgres). The (status, …) indexes
// narrow every query to the pending packets that match the filter; the order is then sorted over that
// set, which is what waits (10,000 pending packets sort in a few milliseconds).
import { z } from "zod";
import { providerOfDb, type Db } from "@/lib/db";
import { impactLevel, type ImpactLevel, type ToolTraits } from "@/lib/runtime/impact";
import type { InboxFacets, InboxFilters, InboxItem } from "@/lib/inbox/queue";
import type { DecisionPacket, ToolDefinition } from "@/lib/runtime/types";
import { hotQuery } from "@/lib/store/hot-path";
import { packetInclude, toPacket } from "@/lib/store/records";

export const INBOX_PAGE_SIZE = 50;

export type InboxPageRequest = {
  filters: InboxFilters;
  me: string;
  /** The reviewer's workspace; null: every workspace's packets (the system's view). */
  workspaceId: string | null;
  cursor?: string;
  pageSize?: number;
  now?: Date;
};
export type InboxPage = {
  items: InboxItem[];
  /** Pending packets that match the filters, on every page. */
  total: number;
  /** Every pending packet. */
  pending: number;
  nextCursor: string | null;
  /** The filter menus' values, with the first page only (a later page of the same walk needs none). */
  facets: InboxFacets | null;
  /** The `now` the order was computed at (the cursor carries it to the next pages). */
  at: string;
};

const HOUR_MS = 3_600_000;
/** Where a packet without a deadline sorts: after every date (the largest a JS Date holds). */
const NO_DEADLINE_MS = 8_640_000_000_000_000;

type Dialect = { param: (n: number) => string; ms: (column: string) => string; least: string; greatest: string };
const DIALECTS: Record<"sqlite" | "postgres", Dialect> = {
  sqlite: {
    param: () => "?",
    ms: (c) => `CAST(ROUND(unixepoch(${c}, 'subsec') * 1000) AS INTEGER)`,
    least: "MIN",
    greatest: "MAX",
  },
  postgres: {
    param: (n) => `$${n}`,
    ms: (c) => `CAST(FLOOR(EXTRACT(EPOCH FROM ${c}) * 1000) AS BIGINT)`,
    least: "LEAST",
    greatest: "GREATEST",
  },
};

/** Bound values and their placeholders, so nothing a user typed is ever spliced into the SQL. */
class Params {
  readonly values: unknown[] = [];
  constructor(private readonly dialect: Dialect) {}
  add(value: unknown): string {
    this.values.push(value);
    return this.dialect.param(this.values.length);
  }
}

const cursorSchema = z.object({
  now: z.number().int(),
  keys: z
    .array(z.union([z.number(), z.string()]))
    .min(2)
    .max(4),
});
type Cursor = z.infer<typeof cursorSchema>;

function encodeCursor(cursor: Cursor): string {
  return Buffer.from(JSON.stringify(cursor)).toString("base64url");
}

/** An opaque cursor from the browser, or undefined when it is not one of ours (the walk starts over). */
export function decodeInboxCursor(value: string | undefined): Cursor | undefined {
  if (!value || value.length > 1000) return undefined;
  try {
    const parsed = cursorSchema.safeParse(JSON.parse(Buffer.from(value, "base64url").toString("utf8")));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** The pending packets of a workspace (null: of every one). Raw SQL is not scoped by lib/workspaces/scope.ts. */
function pendingIn(workspaceId: string | null, params: Params): string {
  return workspaceId === null
    ? `"status" = 'PENDING'`
    : `"status" = 'PENDING' AND "workspaceId" = ${params.add(workspaceId)}`;
}

/** The WHERE of the pending packets that match the filters (bound values in `params`). */
function filterSql(req: InboxPageRequest, params: Params): string {
  const { filters, me } = req;
  const where = [pendingIn(req.workspaceId, params)];
  if (filters.agent) where.push(`"requestedBy" = ${params.add(`agent:${filters.agent}`)}`);
  if (filters.tool) where.push(`"tool" = ${params.add(filters.tool)}`);
  if (filters.capability) where.push(`"capability" = ${params.add(filters.capability)}`);
  if (filters.queue) where.push(`"queue" = ${params.add(filters.queue)}`);
  if (filters.assignee === "unassigned") where.push(`"assignee" IS NULL`);
  else if (filters.assignee) where.push(`"assignee" = ${params.add(filters.assignee)}`);
  if (filters.mine) where.push(`"assignee" = ${params.add(me)}`);
  return where.join(" AND ");
}

/** The sort's keys as SQL expressions, most significant first (the id is added last). */
function orderKeys(sort: InboxFilters["sort"], d: Dialect, nowParam: string): string[] {
  const created = d.ms(`"createdAt"`);
  const expiry = `COALESCE(${d.ms(`"expiresAt"`)}, ${NO_DEADLINE_MS})`;
  const deadline = `CASE WHEN ${expiry} - ${nowParam} <= ${HOUR_MS} THEN 40 WHEN ${expiry} - ${nowParam} <= ${24 * HOUR_MS} THEN 20 ELSE 0 END`;
  const waited = `${d.least}(24, ${d.greatest}(0, (${nowParam} - ${created}) / ${HOUR_MS}))`;
  switch (sort) {
    case "urgency":
      return [`-("impactRank" * 10 + ${deadline} + ${waited})`, expiry, created];
    case "impact":
      return [`-"impactRank"`, expiry, created];
    case "expiry":
      return [expiry, created];
    case "age":
      return [created];
  }
}

/** A page row's id and order keys (BIGINT: a bigint from SQLite, a string from node-pg). */
type KeyRow = {
  id: string;
  k0: bigint | number | string;
  k1?: bigint | number | string;
  k2?: bigint | number | string;
};

async function pageIds(
  db: Db,
  req: InboxPageRequest,
  now: number,
  cursor: Cursor | undefined,
  size: number,
): Promise<KeyRow[]> {
  const d = DIALECTS[providerOfDb(db)];
  const params = new Params(d);
  // `now` is bound once per use (SQLite's `?` cannot be reused), typed (Postgres cannot infer it in arithmetic).
  const nowParam = () => `CAST(${params.add(now)} AS BIGINT)`;
  const keys = orderKeys(req.filters.sort, d, "NOW_MS");
  const selected = keys.map((key, i) => `${key.replaceAll("NOW_MS", () => nowParam())} AS k${i}`).join(", ");
  const where = filterSql(req, params);
  const names = [...keys.map((_, i) => `k${i}`), "id"];
  let after = "";
  if (cursor && cursor.keys.length === names.length) {
    const bound = cursor.keys.map((value, i) =>
      i === names.length - 1
        ? `CAST(${params.add(String(value))} AS TEXT)`
        : `CAST(${params.add(Number(value))} AS BIGINT)`,
    );
    after = `WHERE (${names.join(", ")}) > (${bound.join(", ")})`;
  }
  const sql = `SELECT * FROM (SELECT "id" AS id, ${selected} FROM "DecisionPacket" WHERE ${where}) page ${after} ORDER BY ${names.join(", ")} LIMIT ${params.add(size + 1)}`;
  return hotQuery(db)<KeyRow>({ sql, values: params.values });
}

async function countWhere(db: Db, req: InboxPageRequest): Promise<number> {
  const params = new Params(DIALECTS[providerOfDb(db)]);
  const [row] = await hotQuery(db)<{ n: bigint | number | string }>({
    sql: `SELECT COUNT(*) AS n FROM "DecisionPacket" WHERE ${filterSql(req, params)}`,
    values: params.values,
  });
  return Number(row?.n ?? 0);
}

/** The pending packets of a workspace, and how many of them are assigned to `me`: one statement on the pool (the
 *  navigation's badge reads it on every change of any packet), which the (status, assignee) index serves. */
export async function countPendingIn(
  db: Db,
  me: string,
  workspaceId: string | null,
): Promise<{ pending: number; mine: number }> {
  const params = new Params(DIALECTS[providerOfDb(db)]);
  const mine = params.add(me);
  const [row] = await hotQuery(db)<{ pending: unknown; mine: unknown }>({
    sql: `SELECT COUNT(*) AS pending, COALESCE(SUM(CASE WHEN "assignee" = ${mine} THEN 1 ELSE 0 END), 0) AS mine FROM "DecisionPacket" WHERE ${pendingIn(workspaceId, params)}`,
    values: params.values,
  });
  return { pending: Number(row?.pending ?? 0), mine: Number(row?.mine ?? 0) };
}

/** The values the filter menus offer: those present among all pending packets (each an index-served GROUP BY). */
export async function findInboxFacets(db: Db, workspaceId: string | null): Promise<InboxFacets> {
  const distinct = async (column: string) => {
    const params = new Params(DIALECTS[providerOfDb(db)]);
    const rows = await hotQuery(db)<{ value: string | null }>({
      sql: `SELECT "${column}" AS value FROM "DecisionPacket" WHERE ${pendingIn(workspaceId, params)} GROUP BY "${column}" ORDER BY "${column}"`,
      values: params.values,
    });
    return rows.flatMap((row) => (row.value ? [row.value] : []));
  };
  const [agents, tools, capabilities, assignees, queues] = await Promise.all(
    ["requestedBy", "tool", "capability", "assignee", "queue"].map(distinct),
  );
  return { agents: agents.map((a) => a.replace(/^agent:/, "")), tools, capabilities, assignees, queues };
}

export function toInboxItem(packet: DecisionPacket, traits: ToolTraits): InboxItem {
  return {
    id: packet.id,
    runId: packet.runId,
    step: packet.step,
    kind: packet.kind,
    tool: packet.tool,
    impact: packet.content.impact,
    args: packet.args,
    digest: packet.digest,
    agent: packet.requestedBy.replace(/^agent:/, ""),
    capability: traits?.capability ?? null,
    semantics: traits?.semantics ?? null,
    impactLevel: impactLevel(packet.tool, traits, packet.kind),
    queue: packet.queue,
    assignee: packet.assignee,
    requiredApprovals: packet.requiredApprovals,
    approvers: packet.approvers,
    createdAt: packet.createdAt.toISOString(),
    expiresAt: packet.expiresAt?.toISOString() ?? null,
    onExpire: packet.onExpire,
  };
}

const RANK_LEVEL: Record<number, ImpactLevel> = { 1: "low", 2: "medium", 3: "high" };

/** One page of the inbox in `filters.sort` order, its true totals, and the filter menus. */
export async function findInboxPage(
  db: Db,
  req: InboxPageRequest,
  lookupTool?: (name: string) => Promise<ToolDefinition | undefined>,
): Promise<InboxPage> {
  const size = Math.min(Math.max(req.pageSize ?? INBOX_PAGE_SIZE, 1), 200);
  const cursor = decodeInboxCursor(req.cursor);
  const now = cursor?.now ?? (req.now ?? new Date()).getTime();
  const [keyRows, total, pending, facets] = await Promise.all([
    pageIds(db, req, now, cursor, size),
    countWhere(db, req),
    countWhere(db, { ...req, filters: { sort: req.filters.sort } }),
    cursor ? null : findInboxFacets(db, req.workspaceId),
  ]);
  const pageRows = keyRows.slice(0, size);
  const rows = await db.decisionPacket.findMany({
    where: { id: { in: pageRows.map((r) => r.id) } },
    include: packetInclude,
  });
  const byId = new Map(rows.map((row) => [row.id, row]));
  const traits = new Map<string, Awaited<ReturnType<NonNullable<typeof lookupTool>>>>();
  for (const name of new Set(rows.map((row) => row.tool)))
    traits.set(name, await lookupTool?.(name).catch(() => undefined));
  const items = pageRows.flatMap((keyRow) => {
    const row = byId.get(keyRow.id);
    if (!row) return []; // decided and deleted between the two reads: it is no longer pending anyway
    const tool = traits.get(row.tool);
    const item = toInboxItem(toPacket(row), tool ? { capability: tool.capability, semantics: tool.semantics } : null);
    // The stored rank is what the order used; show the same level the list is sorted by.
    return [
      {
        ...item,
        capability: item.capability ?? (row.capability as InboxItem["capability"]),
        impactLevel: RANK_LEVEL[row.impactRank] ?? item.impactLevel,
      },
    ];
  });
  const last = pageRows[pageRows.length - 1];
  const nextCursor =
    keyRows.length > size && last
      ? encodeCursor({
          now,
          keys: [...[last.k0, last.k1, last.k2].filter((k) => k !== undefined).map(Number), last.id],
        })
      : null;
  return { items, total, pending, nextCursor, facets, at: new Date(now).toISOString() };
}
