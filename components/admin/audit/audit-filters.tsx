import { DateFilterField, FilterPanel, NotAppliedWarning, TextFilterField } from "@/components/shell/filter-form";
import { isAuditFilterActive, type AuditFilter } from "@/lib/audit/filter";

const FIELD_LABELS: Record<string, string> = {
  actor: "Actor",
  action: "Action",
  target: "Object",
  since: "From",
  until: "Before",
};
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
  const textFilters = [
    {
      id: "audit-actor",
      name: "actor",
      label: "Actor",
      hint: "A person's email, exactly",
      className: "w-64",
      value: filter.actor,
      placeholder: "ada@example.com",
    },
    {
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
      id: "audit-target",
      name: "target",
      label: "Object",
      hint: "A run, packet, user, token…",
      className: "w-56",
      value: filter.target,
      placeholder: "run_…",
    },
  ];
  return (
    <FilterPanel
      label="Filter the audit log"
      action="/admin/audit"
      isActive={isAuditFilterActive(filter)}
      warning={
        <NotAppliedWarning ignored={ignored} fieldLabels={FIELD_LABELS}>
          not a valid value (days are YYYY-MM-DD, and “Before” must be after “From”).
        </NotAppliedWarning>
      }
    >
      {textFilters.map((field) => (
        <TextFilterField key={field.id} {...field} />
      ))}
      <DateFilterField id="audit-since" name="since" label="From (UTC)" value={day(filter.since)} />
      <DateFilterField id="audit-until" name="until" label="Before (UTC)" value={day(filter.until)} />
    </FilterPanel>
  );
}
