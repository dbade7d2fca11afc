import { FilterPanel, type FilterField } from "@/components/shell/filter-form";
import { SelectOptions } from "@/components/ui/select-options";
import { statusLabel } from "@/components/ui/status-badge";
import { DECIDED_STATUSES, type DecisionHistoryFilter } from "@/lib/queries/decision-history";

type HistoryFiltersProps = {
  filter: DecisionHistoryFilter;
  /** Filters the URL held that did not parse (they are off): said, so an empty or long list is not a mystery. */
  ignored: string[];
  /** Suggestions only: the filters match exactly what is typed, and a person who has left still has decisions. */
  reviewers: string[];
  tools: string[];
};

// Applying a filter leaves out the cursor: a new filter starts at the newest decision.
export function HistoryFilters({ filter, ignored, reviewers, tools }: HistoryFiltersProps) {
  const fields: FilterField[] = [
    {
      kind: "text",
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
      kind: "text",
      id: "history-tool",
      name: "tool",
      label: "Tool",
      className: "w-52 pb-5",
      value: filter.tool,
      placeholder: "payments.refund",
      suggestions: tools,
    },
    {
      kind: "select",
      id: "history-decision",
      name: "decision",
      label: "Decision",
      className: "w-40 pb-5",
      value: filter.decision,
      options: (
        <>
          <option value="">Any decision</option>
          <SelectOptions values={DECIDED_STATUSES} labelOf={statusLabel} />
        </>
      ),
    },
    { kind: "day", id: "history-from", name: "from", label: "From", value: filter.from },
    { kind: "day", id: "history-to", name: "to", label: "To", note: "inclusive", value: filter.to },
  ];
  return (
    <FilterPanel
      label="Filter the decision history"
      action="/inbox/history"
      fields={fields}
      ignored={ignored}
      invalidValues={`not a valid value${ignored.length > 1 ? "s" : ""} (dates are YYYY-MM-DD, and “To” cannot be before “From”).`}
    />
  );
}
