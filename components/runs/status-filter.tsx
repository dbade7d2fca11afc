import Link from "next/link";
import { statusLabel } from "@/components/ui/status-badge";
import type { RunListFilter } from "@/lib/queries/run-list";
import { RUN_STATUSES } from "@/lib/runtime/types";
import { runsListHref } from "./list-href";

/** Status chips; choosing one keeps the agent and the search, and goes back to the newest page. */
export function StatusFilter({ filter }: { filter: RunListFilter }) {
  const options = [
    { label: "All", href: runsListHref({ ...filter, status: undefined, cursor: undefined }), isActive: !filter.status },
    ...RUN_STATUSES.map((status) => ({ label: statusLabel(status), href: runsListHref({ ...filter, status, cursor: undefined }), isActive: status === filter.status })),
  ];
  return (
    <nav aria-label="Filter by status" className="mb-4 flex flex-wrap gap-1.5">
      {options.map((option) => (
        <Link
          key={option.href}
          href={option.href}
          aria-current={option.isActive ? "page" : undefined}
          className={`rounded-full border px-2.5 py-0.5 text-xs focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-blue-600 ${
            option.isActive ? "border-zinc-900 bg-zinc-900 text-white" : "border-zinc-300 bg-white text-zinc-700 hover:border-zinc-500"
          }`}
        >
          {option.label}
        </Link>
      ))}
    </nav>
  );
}
