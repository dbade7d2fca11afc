import { DateFilterField, FilterPanel, NotAppliedWarning, TextFilterField } from "@/components/shell/filter-form";
import { SelectField } from "@/components/ui/labelled-fields";
import { SelectOptions } from "@/components/ui/select-options";
import { statusLabel } from "@/components/ui/status-badge";
import { DECIDED_STATUSES, isFilterActive, type DecisionHistoryFilter } from "@/lib/queries/decision-history";

type HistoryFiltersProps = {
  filter: DecisionHistoryFilter;
  /** Filters the URL held that did not parse (they are off): said, so an empty or long list is not a mystery. */
  ignored: string[];
  /** Suggestions only: the filters match exactly what is typed, and a person who has left still has decisions. */
  reviewers: string[];
  tools: string[];
};

const FIELD_LABELS: Record<string, string> = {
  reviewer: "Reviewer",
  tool: "Tool",
  decision: "Decision",
  from: "From",
  to: "To",
};

// Applying a filter leaves out the cursor: a new filter starts at the newest decision.
export function HistoryFilters({ filter, ignored, reviewers, tools }: HistoryFiltersProps) {
  const textFilters = [
    {
      id: "history-reviewer",
      name: "reviewer",
      label: "Reviewer",
      hint: "Who made the deciding call",
      className: "w-64",
      value: filter.reviewer,
      placeholder: "rita@example.com",
      suggestions: reviewers,
    },
    {
      id: "history-tool",
      name: "tool",
      label: "Tool",
      className: "w-52 pb-5",
      value: filter.tool,
      placeholder: "payments.refund",
      suggestions: tools,
    },
  ];
  return (
    <FilterPanel
      label="Filter the decision history"
      action="/inbox/history"
      isActive={isFilterActive(filter)}
      warning={
        <NotAppliedWarning ignored={ignored} fieldLabels={FIELD_LABELS}>
          not a valid value{ignored.length > 1 ? "s" : ""} (dates are YYYY-MM-DD, and “To” cannot be before “From”).
        </NotAppliedWarning>
      }
    >
      {textFilters.map((field) => (
        <TextFilterField key={field.id} {...field} />
      ))}
      <SelectField
        id="history-decision"
        name="decision"
        label="Decision"
        className="w-40 pb-5"
        defaultValue={filter.decision ?? ""}
      >
        <option value="">Any decision</option>
        <SelectOptions values={DECIDED_STATUSES} labelOf={statusLabel} />
      </SelectField>
      <DateFilterField id="history-from" name="from" label="From (UTC)" value={filter.from} />
      <DateFilterField id="history-to" name="to" label="To (UTC, inclusive)" value={filter.to} />
    </FilterPanel>
  );
}
