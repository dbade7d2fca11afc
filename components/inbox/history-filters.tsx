import { ConsoleForm, ConsoleLink } from "@/components/shell/console-links";
import { Alert } from "@/components/ui/alert";
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

// A plain GET form: it works before any JavaScript loads, and the URL is the filter (shareable, back
// button). Applying a filter leaves out the cursor: a new filter starts at the newest decision.
export function HistoryFilters({ filter, ignored, reviewers, tools }: HistoryFiltersProps) {
  return (
    <ConsoleForm
      role="search"
      aria-label="Filter the decision history"
      action="/inbox/history"
      method="get"
      className="mb-4 rounded-lg border border-zinc-200 bg-white p-3"
    >
      <div className="flex flex-wrap items-end gap-3">
        <Field id="history-reviewer" label="Reviewer" hint="Who made the deciding call" className="w-64">
          <Input
            id="history-reviewer"
            name="reviewer"
            list="history-reviewers"
            defaultValue={filter.reviewer ?? ""}
            placeholder="rita@example.com"
            aria-describedby="history-reviewer-hint"
            autoComplete="off"
          />
          <datalist id="history-reviewers">
            {reviewers.map((email) => (
              <option key={email} value={email} />
            ))}
          </datalist>
        </Field>
        <Field id="history-tool" label="Tool" className="w-52 pb-5">
          <Input
            id="history-tool"
            name="tool"
            list="history-tools"
            defaultValue={filter.tool ?? ""}
            placeholder="payments.refund"
            autoComplete="off"
          />
          <datalist id="history-tools">
            {tools.map((name) => (
              <option key={name} value={name} />
            ))}
          </datalist>
        </Field>
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
        <div className="flex gap-2 pb-5">
          <button
            type="submit"
            className="rounded border border-transparent bg-blue-700 px-3 py-1.5 text-sm font-medium text-white hover:bg-blue-800 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-blue-600"
          >
            Apply
          </button>
          {isFilterActive(filter) && (
            <ConsoleLink
              href="/inbox/history"
              className="rounded border border-zinc-300 bg-white px-3 py-1.5 text-sm text-zinc-800 hover:bg-zinc-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-blue-600"
            >
              Clear filters
            </ConsoleLink>
          )}
        </div>
      </div>
      {ignored.length > 0 && (
        <Alert tone="warning">
          Not applied: {ignored.map((field) => FIELD_LABELS[field] ?? field).join(", ")} — not a valid value
          {ignored.length > 1 ? "s" : ""} (dates are YYYY-MM-DD, and “To” cannot be before “From”).
        </Alert>
      )}
    </ConsoleForm>
  );
}
