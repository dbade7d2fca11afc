"use client";
import type { ReactNode } from "react";
import { Select } from "@/components/ui/field";
import { SelectOptions } from "@/components/ui/select-options";
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

/** The known values, and the one the URL selects even when no packet has it now, so the select shows it. */
const withSelected = (known: string[], selected: string | undefined) => [
  ...new Set([...known, ...(selected ? [selected] : [])]),
];

/** One select of the bar, its small label above it. */
function FilterSelect({
  id,
  label,
  value,
  onChange,
  children,
}: {
  id: string;
  label: string;
  value: string;
  onChange: (value: string) => void;
  children: ReactNode;
}) {
  return (
    <div>
      <label htmlFor={id} className="mb-1 block text-xs font-medium text-zinc-700">
        {label}
      </label>
      <Select id={id} value={value} onChange={(e) => onChange(e.target.value)}>
        {children}
      </Select>
    </div>
  );
}

/** Sort and filters; they live in the URL (the parent writes them), so a filtered inbox can be shared. */
export function InboxFiltersBar({ filters, facets, me, onChange }: InboxFiltersBarProps) {
  const assignees = withSelected(facets.assignees, filters.assignee === "unassigned" ? undefined : filters.assignee);
  return (
    <form
      aria-label="Filter the inbox"
      className="mb-4 flex flex-wrap items-end gap-3 rounded-lg border border-zinc-200 bg-white p-3"
      onSubmit={(e) => e.preventDefault()}
    >
      <FilterSelect
        id="inbox-sort"
        label="Sort by"
        value={filters.sort}
        onChange={(sort) => onChange({ ...filters, sort: sort as InboxFilters["sort"] })}
      >
        <SelectOptions values={SORTS} labelOf={(sort) => SORT_LABELS[sort]} />
      </FilterSelect>
      {SELECTS.map(({ key, label, facet }) => (
        <FilterSelect
          key={key}
          id={`inbox-${key}`}
          label={label}
          value={filters[key] ?? ""}
          onChange={(value) => onChange({ ...filters, [key]: value || undefined })}
        >
          <option value="">All</option>
          <SelectOptions values={withSelected(facets[facet], filters[key])} />
        </FilterSelect>
      ))}
      <FilterSelect
        id="inbox-assignee"
        label="Assignee"
        value={filters.assignee ?? ""}
        onChange={(assignee) => onChange({ ...filters, assignee: assignee || undefined })}
      >
        <option value="">Anyone</option>
        <option value="unassigned">Unassigned</option>
        <SelectOptions values={assignees} labelOf={(value) => (value === me ? `${value} (you)` : value)} />
      </FilterSelect>
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
