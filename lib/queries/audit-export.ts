import { z } from "zod";
import { csvStream } from "@/lib/csv";
import type { Db } from "@/lib/db";
import {
  auditFilterFields,
  auditWhere,
  decodeAuditCursor,
  encodeAuditCursor,
  rangeMessage,
  refineRange,
  type AuditFilter,
  type AuditKey,
} from "@/lib/audit/filter";
import { AUDIT_CSV_HEADER, toCsvRecord, toExportEntries, type AuditExportEntry } from "@/lib/audit/entries";

// The audit log export (GET /api/audit for tokens, /api/console/audit for the admin page): the entries
// of a filter, oldest first, `limit` a response, streamed — rows are read from the database in batches as
// the client reads, never the whole log at once. The page's end is fixed before the first byte is sent
// (the key of its last entry), so the `next` cursor can go in a header and entries written meanwhile
// land on a later page: paging has no gaps and no duplicates.

export const AUDIT_EXPORT_MAX_LIMIT = 50_000;
const BATCH = 500;

export const auditExportQuerySchema = z
  .object({
    ...auditFilterFields,
    format: z.enum(["jsonl", "csv"]).default("jsonl"),
    cursor: z
      .string()
      .max(200)
      .optional()
      .refine(
        (v) => v === undefined || decodeAuditCursor(v) !== undefined,
        "Not a cursor from this export (use the X-Next-Cursor header's value).",
      ),
    limit: z.coerce.number().int().min(1).max(AUDIT_EXPORT_MAX_LIMIT).default(10_000),
  })
  .refine(refineRange, { path: ["until"], message: rangeMessage });
export type AuditExportQuery = z.infer<typeof auditExportQuerySchema>;

const ORDER = [{ at: "asc" as const }, { id: "asc" as const }];

/** The key of this page's last entry, and whether entries follow it; undefined when the page is empty. */
async function pageEnd(
  db: Db,
  filter: AuditFilter,
  after: AuditKey | undefined,
  limit: number,
): Promise<{ upTo: AuditKey; hasMore: boolean } | undefined> {
  const where = auditWhere(filter, { after });
  const [last, following] = await db.auditLog.findMany({
    where,
    orderBy: ORDER,
    skip: limit - 1,
    take: 2,
    select: { at: true, id: true },
  });
  if (last) return { upTo: last, hasMore: following !== undefined };
  const newest = await db.auditLog.findFirst({
    where,
    orderBy: [{ at: "desc" }, { id: "desc" }],
    select: { at: true, id: true },
  });
  return newest ? { upTo: newest, hasMore: false } : undefined;
}

/** The entries after `after` up to `upTo` (inclusive), a batch at a time. */
async function* entriesBetween(
  db: Db,
  filter: AuditFilter,
  after: AuditKey | undefined,
  upTo: AuditKey,
): AsyncGenerator<AuditExportEntry> {
  let cursor = after;
  for (;;) {
    const rows = await db.auditLog.findMany({
      where: auditWhere(filter, { after: cursor, upTo }),
      orderBy: ORDER,
      take: BATCH,
    });
    yield* await toExportEntries(db, rows);
    if (rows.length < BATCH) return;
    cursor = rows.at(-1)!;
  }
}

function jsonlStream(entries: AsyncIterable<AuditExportEntry>): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const iterator = entries[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let chunk = "";
      for (let i = 0; i < BATCH; i++) {
        const { value, done } = await iterator.next();
        if (done) {
          if (chunk) controller.enqueue(encoder.encode(chunk));
          controller.close();
          return;
        }
        chunk += `${JSON.stringify(value)}\n`;
      }
      controller.enqueue(encoder.encode(chunk));
    },
    async cancel() {
      await iterator.return?.(undefined);
    },
  });
}

async function* nothing(): AsyncGenerator<AuditExportEntry> {}

async function* csvRecords(entries: AsyncIterable<AuditExportEntry>): AsyncGenerator<unknown[]> {
  for await (const entry of entries) yield toCsvRecord(entry);
}

/** One page of the export as an HTTP response: the body streams; X-Next-Cursor (and Link rel=next) when more follow. */
export async function exportAuditLog(db: Db, query: AuditExportQuery, opts: { basePath: string }): Promise<Response> {
  const { format, limit, cursor, ...filter } = query;
  const after = decodeAuditCursor(cursor);
  const end = await pageEnd(db, filter, after, limit);
  const entries = end ? entriesBetween(db, filter, after, end.upTo) : nothing();
  const body = format === "csv" ? csvStream(AUDIT_CSV_HEADER, csvRecords(entries)) : jsonlStream(entries);
  const headers = new Headers({
    "content-type": format === "csv" ? "text/csv; charset=utf-8" : "application/x-ndjson; charset=utf-8",
    "content-disposition": `attachment; filename="audit-log.${format}"`,
    "cache-control": "no-store",
  });
  if (end?.hasMore) {
    const next = encodeAuditCursor(end.upTo);
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(query))
      if (value !== undefined && key !== "cursor")
        params.set(key, value instanceof Date ? value.toISOString() : String(value));
    params.set("cursor", next);
    headers.set("x-next-cursor", next);
    headers.set("link", `<${opts.basePath}?${params}>; rel="next"`);
  }
  return new Response(body, { headers });
}
