import { z } from "zod";
import type { Capability, EffectSemantics, PacketKind } from "@/lib/runtime/types";
import { IMPACT_RANK, type ImpactLevel } from "./impact";

// The inbox queue: the plain item the list renders (JSON-safe: it crosses the polling route), its
// filters (held in the URL's search params), and the sort orders. Pure.

export type InboxItem = {
  id: string;
  runId: string;
  step: number;
  kind: PacketKind;
  tool: string;
  /** The tool's impact sentence: "refunds $240.00 to card •4242". */
  impact: string;
  args: unknown;
  digest: string;
  agent: string;
  capability: Capability | null;
  semantics: EffectSemantics | null;
  impactLevel: ImpactLevel;
  queue: string;
  assignee: string | null;
  requiredApprovals: number;
  approvers: string[];
  createdAt: string;
  expiresAt: string | null;
};

export const SORTS = ["urgency", "impact", "expiry", "age"] as const;
export type InboxSort = (typeof SORTS)[number];
export const SORT_LABELS: Record<InboxSort, string> = { urgency: "Urgency", impact: "Impact", expiry: "Expires soonest", age: "Waiting longest" };

const optionalText = z.string().trim().min(1).max(200).optional().catch(undefined);
export const inboxFiltersSchema = z.object({
  sort: z.enum(SORTS).catch("urgency").default("urgency"),
  agent: optionalText,
  tool: optionalText,
  capability: optionalText,
  /** an email, or "unassigned" */
  assignee: optionalText,
  queue: optionalText,
  mine: z.preprocess((v) => v === "1" || v === "true" || v === true, z.boolean()).optional().catch(undefined),
});
export type InboxFilters = z.output<typeof inboxFiltersSchema>;

/** Search params (repeated keys: the first wins) → filters; anything unknown or malformed is dropped. */
export function parseInboxFilters(params: Record<string, string | string[] | undefined> | URLSearchParams): InboxFilters {
  const entries = params instanceof URLSearchParams ? [...params.keys()].map((k) => [k, params.get(k) ?? undefined] as const) : Object.entries(params).map(([k, v]) => [k, Array.isArray(v) ? v[0] : v] as const);
  return inboxFiltersSchema.parse(Object.fromEntries(entries));
}

/** Filters → search params, leaving defaults out so URLs stay short. */
export function inboxFiltersToParams(filters: Partial<InboxFilters>): URLSearchParams {
  const params = new URLSearchParams();
  if (filters.sort && filters.sort !== "urgency") params.set("sort", filters.sort);
  for (const key of ["agent", "tool", "capability", "assignee", "queue"] as const) if (filters[key]) params.set(key, filters[key]!);
  if (filters.mine) params.set("mine", "1");
  return params;
}

export function filterInbox(items: InboxItem[], filters: InboxFilters, me: string): InboxItem[] {
  return items.filter((item) =>
    (!filters.agent || item.agent === filters.agent) &&
    (!filters.tool || item.tool === filters.tool) &&
    (!filters.capability || item.capability === filters.capability) &&
    (!filters.queue || item.queue === filters.queue) &&
    (!filters.assignee || (filters.assignee === "unassigned" ? item.assignee === null : item.assignee === filters.assignee)) &&
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
  const byAge = (a: InboxItem, b: InboxItem) => Date.parse(a.createdAt) - Date.parse(b.createdAt) || a.id.localeCompare(b.id);
  const compare: Record<InboxSort, (a: InboxItem, b: InboxItem) => number> = {
    urgency: (a, b) => urgencyScore(b, now) - urgencyScore(a, now) || byExpiry(a, b) || byAge(a, b),
    impact: (a, b) => IMPACT_RANK[b.impactLevel] - IMPACT_RANK[a.impactLevel] || byExpiry(a, b) || byAge(a, b),
    expiry: (a, b) => byExpiry(a, b) || byAge(a, b),
    age: byAge,
  };
  return items.toSorted(compare[sort]);
}

export type InboxFacets = { agents: string[]; tools: string[]; capabilities: string[]; assignees: string[]; queues: string[] };

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

/** Bulk decisions take packets of one tool only: one confirmation, one kind of action. */
export function canDecideTogether(items: InboxItem[]): boolean {
  return items.length > 0 && items.every((item) => item.tool === items[0].tool && item.kind === "APPROVAL");
}
