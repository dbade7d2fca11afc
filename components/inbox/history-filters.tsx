import { FilterActions, FilterPanel, NotAppliedWarning, TextFilterField } from "@/components/shell/filter-form";
import { Field, Input, Select } from "@/components/ui/field";
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
  return (
    <FilterPanel
      label="Filter the decision history"
      action="/inbox/history"
      warning={
        <NotAppliedWarning ignored={ignored} fieldLabels={FIELD_LABELS}>
          not a valid value{ignored.length > 1 ? "s" : ""} (dates are YYYY-MM-DD, and “To” cannot be before “From”).
        </NotAppliedWarning>
      }
    >
      <TextFilterField
        id="history-reviewer"
        name="reviewer"
        label="Reviewer"
        hint="Who made the deciding call"
        className="w-64"
        value={filter.reviewer}
        placeholder="rita@example.com"
        suggestions={reviewers}
      />
      <TextFilterField
        id="history-tool"
        name="tool"
        label="Tool"
        className="w-52 pb-5"
        value={filter.tool}
        placeholder="payments.refund"
        suggestions={tools}
      />
      <Field id="history-decision" label="Decision" className="w-40 pb-5">
        <Select id="history-decision" name="decision" defaultValue={filter.decision ?? ""}>
          <option value="">Any decision</option>
          {DECIDED_STATUSES.map((status) => (
            <option key={status} value={status}>
              {statusLabel(status)}
            </option>
          ))}
        </Select>
      </Field>
      <Field id="history-from" label="From (UTC)" className="w-40 pb-5">
        <Input id="history-from" name="from" type="date" defaultValue={filter.from ?? ""} />
      </Field>
      <Field id="history-to" label="To (UTC, inclusive)" className="w-40 pb-5">
        <Input id="history-to" name="to" type="date" defaultValue={filter.to ?? ""} />
      </Field>
      <FilterActions clearHref="/inbox/history" isActive={isFilterActive(filter)} />
    </FilterPanel>
  );
}
