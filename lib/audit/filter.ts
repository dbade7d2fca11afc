import { z } from "zod";
import type { Prisma } from "@/lib/generated/sqlite/client";
import { blankIsAbsent, firstParam, parseFilterParams, type SearchParams } from "@/lib/queries/search-params";

// Which audit entries: by actor (exact), action (a prefix: "users." is every user change), object (the
// entry's target, exact) and a time range [since, until). The HTTP export parses it strictly (a filter
// that does not parse is a 400: an export must not silently hold more than was asked for); the admin page
// forgivingly (a bad field is off, and said). Paging is keyset on (at, id): an entry written while
// someone pages never shifts a page, so pages have no gaps and no duplicates.

export type AuditFilter = { actor?: string; action?: string; target?: string; since?: Date; until?: Date };
export type AuditKey = { at: Date; id: string };

/** An instant (ISO 8601 with an offset) or a day (YYYY-MM-DD, its midnight UTC). */
const instant = z
  .union([z.iso.datetime({ offset: true }), z.iso.date()], {
    message: "Use an ISO 8601 time (2026-12-01T09:00:00Z) or a day (2026-12-01).",
  })
  .transform((value) => new Date(value));

export const auditFilterFields = {
  actor: blankIsAbsent(z.string().trim().max(320)),
  action: blankIsAbsent(z.string().trim().max(100)),
  target: blankIsAbsent(z.string().trim().max(300)),
  since: blankIsAbsent(instant),
  until: blankIsAbsent(instant),
};
type FilterField = keyof typeof auditFilterFields;
export const AUDIT_FILTER_FIELDS = Object.keys(auditFilterFields) as FilterField[];

const isRangeReversed = (f: AuditFilter) => Boolean(f.since && f.until && f.until <= f.since);
export const rangeMessage = "until must be after since.";
export const refineRange = <T extends AuditFilter>(f: T) => !isRangeReversed(f);

/** The filter from the page's search params: a value that does not parse is dropped and named in `ignored`. */
export function parseAuditPageParams(params: SearchParams): {
  filter: AuditFilter;
  ignored: FilterField[];
  cursor?: AuditKey;
} {
  const { filter, ignored } = parseFilterParams(auditFilterFields, params);
  if (isRangeReversed(filter)) {
    delete filter.until;
    ignored.push("until");
  }
  return { filter, ignored, cursor: decodeAuditCursor(firstParam(params.cursor)) };
}

export const isAuditFilterActive = (filter: AuditFilter) =>
  AUDIT_FILTER_FIELDS.some((field) => filter[field] !== undefined);

/** The filter as search params (the page's links and the export link keep it); days stay days. */
export function toAuditSearchParams(
  filter: AuditFilter,
  extra: Record<string, string | undefined> = {},
): URLSearchParams {
  const params = new URLSearchParams();
  for (const field of AUDIT_FILTER_FIELDS) {
    const value = filter[field];
    if (value instanceof Date) params.set(field, value.toISOString());
    else if (value) params.set(field, value);
  }
  for (const [key, value] of Object.entries(extra)) if (value) params.set(key, value);
  return params;
}

/** "<ms>.<id>": opaque to clients. */
export const encodeAuditCursor = (key: AuditKey) => `${key.at.getTime()}.${key.id}`;

export function decodeAuditCursor(value: string | undefined): AuditKey | undefined {
  const match = value?.match(/^(\d{1,15})\.([A-Za-z0-9_-]{1,100})$/);
  return match ? { at: new Date(Number(match[1])), id: match[2] } : undefined;
}

/** Entries after `key` in (at, id) order, or before it when `direction` is "before". */
function beyond(key: AuditKey, direction: "after" | "before" | "upTo"): Prisma.AuditLogWhereInput {
  if (direction === "after") return { OR: [{ at: { gt: key.at } }, { at: key.at, id: { gt: key.id } }] };
  if (direction === "before") return { OR: [{ at: { lt: key.at } }, { at: key.at, id: { lt: key.id } }] };
  return { OR: [{ at: { lt: key.at } }, { at: key.at, id: { lte: key.id } }] };
}

export function auditWhere(
  filter: AuditFilter,
  bounds: { after?: AuditKey; before?: AuditKey; upTo?: AuditKey } = {},
): Prisma.AuditLogWhereInput {
  return {
    AND: [
      filter.since || filter.until
        ? { at: { ...(filter.since ? { gte: filter.since } : {}), ...(filter.until ? { lt: filter.until } : {}) } }
        : {},
      filter.actor ? { actor: filter.actor } : {},
      filter.action ? { action: { startsWith: filter.action } } : {},
      filter.target ? { target: filter.target } : {},
      bounds.after ? beyond(bounds.after, "after") : {},
      bounds.before ? beyond(bounds.before, "before") : {},
      bounds.upTo ? beyond(bounds.upTo, "upTo") : {},
    ],
  };
}
