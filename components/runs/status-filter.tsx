import { ConsoleLink } from "@/components/shell/console-links";
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

const formatCount = (n: number) => n.toLocaleString("en-US");

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
  return (
    <nav aria-label="Filter by status" className="mb-4 flex flex-wrap gap-1.5">
      {options.map((option) => (
        <ConsoleLink
          key={option.href}
          href={option.href}
          aria-current={option.isActive ? "page" : undefined}
          className={`rounded-full border px-2.5 py-0.5 text-xs focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-blue-600 ${
            option.isActive
              ? "border-zinc-900 bg-zinc-900 text-white"
              : "border-zinc-300 bg-white text-zinc-700 hover:border-zinc-500"
          }`}
        >
          {option.label}
          {option.count !== undefined && (
            <span className={`ml-1.5 tabular-nums ${option.isActive ? "text-zinc-300" : "text-zinc-500"}`}>
              {formatCount(option.count)}
            </span>
          )}
        </ConsoleLink>
      ))}
    </nav>
  );
}
