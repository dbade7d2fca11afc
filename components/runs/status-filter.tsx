import { FilterChips } from "@/components/shell/filter-form";
import { statusLabel } from "@/components/ui/status-badge";
import type { RunListFilter } from "@/lib/queries/run-list";
import type { RunStatusCounts } from "@/lib/queries/run-status-counts";
import { RUN_STATUSES } from "@/lib/runtime/types";
import { runsListHref } from "./list-href";

type StatusFilterProps = {
  filter: RunListFilter;
  /** Runs per status over every run; only given when the list is not narrowed by agent or search (they would not add up). */
  counts?: RunStatusCounts;
};

/** Status chips; choosing one keeps the agent and the search, and goes back to the newest page. */
export function StatusFilter({ filter, counts }: StatusFilterProps) {
  const total = counts && Object.values(counts).reduce((sum, n) => sum + n, 0);
  const options = [
    {
      label: "All",
      count: total,
      href: runsListHref({ ...filter, status: undefined, cursor: undefined }),
      isActive: !filter.status,
    },
    ...RUN_STATUSES.map((status) => ({
      label: statusLabel(status),
      count: counts?.[status],
      href: runsListHref({ ...filter, status, cursor: undefined }),
      isActive: status === filter.status,
    })),
  ];
  return <FilterChips label="Filter by status" chips={options} />;
}
