import { z } from "zod";
import type { Capability, EffectSemantics, PacketKind } from "@/lib/runtime/types";
import type { ImpactLevel } from "@/lib/runtime/impact";

// The inbox queue: the plain item the list renders (JSON-safe: it crosses the polling route), its
// filters (held in the URL's search params), and the sort orders (applied in the database:
// lib/queries/inbox-page.ts). Pure.

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
  /** What happens at expiry: "reject", "escalate:<queue>" (the rule's onExpire). */
  onExpire: string;
};

export const SORTS = ["urgency", "impact", "expiry", "age"] as const;
export type InboxSort = (typeof SORTS)[number];
export const SORT_LABELS: Record<InboxSort, string> = {
  urgency: "Urgency",
  impact: "Impact",
  expiry: "Expires soonest",
  age: "Waiting longest",
};

const optionalText = z.string().trim().min(1).max(200).optional().catch(undefined);
export const inboxFiltersSchema = z.object({
  sort: z.enum(SORTS).catch("urgency").default("urgency"),
  agent: optionalText,
  tool: optionalText,
  capability: optionalText,
  /** an email, or "unassigned" */
  assignee: optionalText,
  queue: optionalText,
  mine: z
    .preprocess((v) => v === "1" || v === "true" || v === true, z.boolean())
    .optional()
    .catch(undefined),
});
export type InboxFilters = z.output<typeof inboxFiltersSchema>;

/** Search params (repeated keys: the first wins) → filters; anything unknown or malformed is dropped. */
export function parseInboxFilters(
  params: Record<string, string | string[] | undefined> | URLSearchParams,
): InboxFilters {
  const entries =
    params instanceof URLSearchParams
      ? [...params.keys()].map((k) => [k, params.get(k) ?? undefined] as const)
      : Object.entries(params).map(([k, v]) => [k, Array.isArray(v) ? v[0] : v] as const);
  return inboxFiltersSchema.parse(Object.fromEntries(entries));
}

/** Filters → search params, leaving defaults out so URLs stay short. */
export function inboxFiltersToParams(filters: Partial<InboxFilters>): URLSearchParams {
  const params = new URLSearchParams();
  if (filters.sort && filters.sort !== "urgency") params.set("sort", filters.sort);
  for (const key of ["agent", "tool", "capability", "assignee", "queue"] as const)
    if (filters[key]) params.set(key, filters[key]!);
  if (filters.mine) params.set("mine", "1");
  return params;
}

export type InboxFacets = {
  agents: string[];
  tools: string[];
  capabilities: string[];
  assignees: string[];
  queues: string[];
};

/** Bulk decisions take packets of one tool only: one confirmation, one kind of action. */
export function canDecideTogether(items: InboxItem[]): boolean {
  return items.length > 0 && items.every((item) => item.tool === items[0].tool && item.kind === "APPROVAL");
}
