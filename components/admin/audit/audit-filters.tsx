import { FilterPanel, type FilterField } from "@/components/shell/filter-form";
import type { AuditFilter } from "@/lib/audit/filter";

const day = (date: Date | undefined) => date?.toISOString().slice(0, 10);

// Applying a filter leaves out the cursor: a new filter starts at the newest entry.
export function AuditFilters({
  filter,
  ignored,
  actions,
}: {
  filter: AuditFilter;
  ignored: string[];
  actions: string[];
}) {
  const fields: FilterField[] = [
    {
      kind: "text",
      id: "audit-actor",
      name: "actor",
      label: "Actor",
      hint: "A person's email, exactly",
      className: "w-64",
      value: filter.actor,
      placeholder: "ada@example.com",
    },
    {
      kind: "text",
      id: "audit-action",
      name: "action",
      label: "Action",
      hint: "Or its start: users.",
      className: "w-52",
      value: filter.action,
      placeholder: "packets.decide",
      suggestions: actions,
    },
    {
      kind: "text",
      id: "audit-target",
      name: "target",
      label: "Object",
      hint: "A run, packet, user, token…",
      className: "w-56",
      value: filter.target,
      placeholder: "run_…",
    },
    { kind: "day", id: "audit-since", name: "since", label: "From", value: day(filter.since) },
    { kind: "day", id: "audit-until", name: "until", label: "Before", value: day(filter.until) },
  ];
  return (
    <FilterPanel
      label="Filter the audit log"
      action="/admin/audit"
      fields={fields}
      ignored={ignored}
      invalidValues="not a valid value (days are YYYY-MM-DD, and “Before” must be after “From”)."
    />
  );
}
