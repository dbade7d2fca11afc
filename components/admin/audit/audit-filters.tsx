import { ConsoleForm, ConsoleLink } from "@/components/shell/console-links";
import { Alert } from "@/components/ui/alert";
import { Field, Input } from "@/components/ui/field";
import { isAuditFilterActive, type AuditFilter } from "@/lib/audit/filter";

const FIELD_LABELS: Record<string, string> = {
  actor: "Actor",
  action: "Action",
  target: "Object",
  since: "From",
  until: "Before",
};
const BUTTON =
  "rounded border px-3 py-1.5 text-sm focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-blue-600";
const day = (date: Date | undefined) => date?.toISOString().slice(0, 10) ?? "";

// A plain GET form: the URL is the filter (shareable, back button), and applying one starts at the newest entry.
export function AuditFilters({
  filter,
  ignored,
  actions,
}: {
  filter: AuditFilter;
  ignored: string[];
  actions: string[];
}) {
  return (
    <ConsoleForm
      role="search"
      aria-label="Filter the audit log"
      action="/admin/audit"
      method="get"
      className="mb-4 rounded-lg border border-zinc-200 bg-white p-3"
    >
      <div className="flex flex-wrap items-end gap-3">
        <Field id="audit-actor" label="Actor" hint="A person's email, exactly" className="w-64">
          <Input
            id="audit-actor"
            name="actor"
            defaultValue={filter.actor ?? ""}
            placeholder="ada@example.com"
            aria-describedby="audit-actor-hint"
            autoComplete="off"
          />
        </Field>
        <Field id="audit-action" label="Action" hint="Or its start: users." className="w-52">
          <Input
            id="audit-action"
            name="action"
            list="audit-actions"
            defaultValue={filter.action ?? ""}
            placeholder="packets.decide"
            aria-describedby="audit-action-hint"
            autoComplete="off"
          />
          <datalist id="audit-actions">
            {actions.map((action) => (
              <option key={action} value={action} />
            ))}
          </datalist>
        </Field>
        <Field id="audit-target" label="Object" hint="A run, packet, user, token…" className="w-56">
          <Input
            id="audit-target"
            name="target"
            defaultValue={filter.target ?? ""}
            placeholder="run_…"
            aria-describedby="audit-target-hint"
            autoComplete="off"
          />
        </Field>
        <Field id="audit-since" label="From (UTC)" className="w-40 pb-5">
          <Input id="audit-since" name="since" type="date" defaultValue={day(filter.since)} />
        </Field>
        <Field id="audit-until" label="Before (UTC)" className="w-40 pb-5">
          <Input id="audit-until" name="until" type="date" defaultValue={day(filter.until)} />
        </Field>
        <div className="flex gap-2 pb-5">
          <button
            type="submit"
            className={`${BUTTON} border-transparent bg-blue-700 font-medium text-white hover:bg-blue-800`}
          >
            Apply
          </button>
          {isAuditFilterActive(filter) && (
            <ConsoleLink
              href="/admin/audit"
              className={`${BUTTON} border-zinc-300 bg-white text-zinc-800 hover:bg-zinc-50`}
            >
              Clear filters
            </ConsoleLink>
          )}
        </div>
      </div>
      {ignored.length > 0 && (
        <Alert tone="warning">
          Not applied: {ignored.map((field) => FIELD_LABELS[field] ?? field).join(", ")} — not a valid value (days are
          YYYY-MM-DD, and “Before” must be after “From”).
        </Alert>
      )}
    </ConsoleForm>
  );
}
