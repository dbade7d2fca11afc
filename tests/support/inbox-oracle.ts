import { IMPACT_RANK } from "../../lib/runtime/impact";
import type { InboxFacets, InboxFilters, InboxItem, InboxSort } from "../../lib/inbox/queue";

// The inbox's orders and filters as a plain in-memory model: the specification the database queries
// (lib/queries/inbox-page.ts) are held to, item for item, on SQLite and Postgres.

export function filterInbox(items: InboxItem[], filters: InboxFilters, me: string): InboxItem[] {
  return items.filter(
    (item) =>
      (!filters.agent || item.agent === filters.agent) &&
      (!filters.tool || item.tool === filters.tool) &&
      (!filters.capability || item.capability === filters.capability) &&
      (!filters.queue || item.queue === filters.queue) &&
      (!filters.assignee ||
        (filters.assignee === "unassigned" ? item.assignee === null : item.assignee === filters.assignee)) &&
      (!filters.mine || item.assignee === me),
  );
}

const HOUR = 3_600_000;
const time = (iso: string | null) => (iso ? Date.parse(iso) : Number.POSITIVE_INFINITY);

/**
 * Urgency: how soon a wrong or missing answer hurts. Points for impact (high 30, medium 20, low 10),
 * for a deadline (expired or within 1 h: +40, within 24 h: +20) and for waiting (+1 per hour, at most 24).
 * Ties go to the earlier deadline, then to the longer wait.
 */
export function urgencyScore(item: InboxItem, now: Date): number {
  const left = time(item.expiresAt) - now.getTime();
  const deadline = left <= HOUR ? 40 : left <= 24 * HOUR ? 20 : 0;
  const waited = Math.min(24, Math.max(0, Math.floor((now.getTime() - Date.parse(item.createdAt)) / HOUR)));
  return IMPACT_RANK[item.impactLevel] * 10 + deadline + waited;
}

export function sortInbox(items: InboxItem[], sort: InboxSort, now: Date): InboxItem[] {
  const byExpiry = (a: InboxItem, b: InboxItem) => time(a.expiresAt) - time(b.expiresAt);
  const byAge = (a: InboxItem, b: InboxItem) =>
    Date.parse(a.createdAt) - Date.parse(b.createdAt) || a.id.localeCompare(b.id);
  const compare: Record<InboxSort, (a: InboxItem, b: InboxItem) => number> = {
    urgency: (a, b) => urgencyScore(b, now) - urgencyScore(a, now) || byExpiry(a, b) || byAge(a, b),
    impact: (a, b) => IMPACT_RANK[b.impactLevel] - IMPACT_RANK[a.impactLevel] || byExpiry(a, b) || byAge(a, b),
    expiry: (a, b) => byExpiry(a, b) || byAge(a, b),
    age: byAge,
  };
  return items.toSorted(compare[sort]);
}

/** The values the filter menus offer: those present in the pending packets. */
export function inboxFacets(items: InboxItem[]): InboxFacets {
  const distinct = (values: Array<string | null>) => [...new Set(values.filter((v): v is string => !!v))].sort();
  return {
    agents: distinct(items.map((i) => i.agent)),
    tools: distinct(items.map((i) => i.tool)),
    capabilities: distinct(items.map((i) => i.capability)),
    assignees: distinct(items.map((i) => i.assignee)),
    queues: distinct(items.map((i) => i.queue)),
  };
}
