"use client";
import { Select } from "@/components/ui/field";
import { SORT_LABELS, SORTS, type InboxFacets, type InboxFilters } from "@/lib/inbox/queue";

type InboxFiltersBarProps = {
  filters: InboxFilters;
  facets: InboxFacets;
  me: string;
  onChange: (next: InboxFilters) => void;
};

const SELECTS = [
  { key: "agent", label: "Agent", facet: "agents" },
  { key: "tool", label: "Tool", facet: "tools" },
  { key: "capability", label: "Capability", facet: "capabilities" },
  { key: "queue", label: "Queue", facet: "queues" },
] as const;

/** Sort and filters; they live in the URL (the parent writes them), so a filtered inbox can be shared. */
export function InboxFiltersBar({ filters, facets, me, onChange }: InboxFiltersBarProps) {
  const assignees = [
    ...new Set([
      ...facets.assignees,
      ...(filters.assignee && filters.assignee !== "unassigned" ? [filters.assignee] : []),
    ]),
  ];
  return (
    <form
      aria-label="Filter the inbox"
      className="mb-4 flex flex-wrap items-end gap-3 rounded-lg border border-zinc-200 bg-white p-3"
      onSubmit={(e) => e.preventDefault()}
    >
      <div>
        <label htmlFor="inbox-sort" className="mb-1 block text-xs font-medium text-zinc-700">
          Sort by
        </label>
        <Select
          id="inbox-sort"
          value={filters.sort}
          onChange={(e) => onChange({ ...filters, sort: e.target.value as InboxFilters["sort"] })}
        >
          {SORTS.map((sort) => (
            <option key={sort} value={sort}>
              {SORT_LABELS[sort]}
            </option>
          ))}
        </Select>
      </div>
      {SELECTS.map(({ key, label, facet }) => {
        const values = [...new Set([...facets[facet], ...(filters[key] ? [filters[key]!] : [])])];
        return (
          <div key={key}>
            <label htmlFor={`inbox-${key}`} className="mb-1 block text-xs font-medium text-zinc-700">
              {label}
            </label>
            <Select
              id={`inbox-${key}`}
              value={filters[key] ?? ""}
              onChange={(e) => onChange({ ...filters, [key]: e.target.value || undefined })}
            >
              <option value="">All</option>
              {values.map((value) => (
                <option key={value} value={value}>
                  {value}
                </option>
              ))}
            </Select>
          </div>
        );
      })}
      <div>
        <label htmlFor="inbox-assignee" className="mb-1 block text-xs font-medium text-zinc-700">
          Assignee
        </label>
        <Select
          id="inbox-assignee"
          value={filters.assignee ?? ""}
          onChange={(e) => onChange({ ...filters, assignee: e.target.value || undefined })}
        >
          <option value="">Anyone</option>
          <option value="unassigned">Unassigned</option>
          {assignees.map((value) => (
            <option key={value} value={value}>
              {value === me ? `${value} (you)` : value}
            </option>
          ))}
        </Select>
      </div>
      <label className="flex items-center gap-2 pb-1.5 text-sm text-zinc-800">
        <input
          type="checkbox"
          checked={filters.mine ?? false}
          onChange={(e) => onChange({ ...filters, mine: e.target.checked || undefined })}
          className="size-4 focus-visible:outline-2 focus-visible:outline-blue-600"
        />
        Assigned to me
      </label>
    </form>
  );
}
