import type { RunListFilter } from "@/lib/queries/run-list";

/** The /runs URL for a filter: filters survive every link (status chips, paging). */
export function runsListHref(filter: RunListFilter): string {
  const params = new URLSearchParams();
  if (filter.status) params.set("status", filter.status);
  if (filter.agent) params.set("agent", filter.agent);
  if (filter.agent && filter.version) params.set("version", filter.version);
  if (filter.q) params.set("q", filter.q);
  if (filter.cursor) params.set("cursor", filter.cursor);
  const query = params.toString();
  return query ? `/runs?${query}` : "/runs";
}
