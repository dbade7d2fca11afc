import type { ReactNode } from "react";
import { ConsoleForm, ConsoleLink } from "@/components/shell/console-links";
import { Alert } from "@/components/ui/alert";
import { Field, Input } from "@/components/ui/field";
import { InputField, SelectField } from "@/components/ui/labelled-fields";

// The pieces every list filter in the console shares. Each filter is a plain GET form: it works before any
// JavaScript loads, and the URL is the filter (shareable, back button).

const BUTTON =
  "rounded border px-3 py-1.5 text-sm focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-blue-600";

type TextFilterOptions = {
  kind: "text";
  hint?: string;
  className?: string;
  placeholder: string;
  /** Known values, offered in a datalist. */
  suggestions?: string[];
};
type SelectFilterOptions = { kind: "select"; className?: string; options: ReactNode };
/** A day (YYYY-MM-DD, as the URL holds it, in UTC); `note` qualifies the range's end ("inclusive"). */
type DayFilterOptions = { kind: "day"; note?: string };

/**
 * A field of a filter form. `name` is its search param; `label` names it on the form and in the warning
 * about values that did not parse; `value` is what the URL holds (undefined: that filter is off).
 */
export type FilterField = { id: string; name: string; label: string; value: string | undefined } & (
  TextFilterOptions | SelectFilterOptions | DayFilterOptions
);

/**
 * A filter form in its own panel: its fields in a wrapping row ending in Apply (and, while a field holds a
 * value, Clear filters), and below them a warning naming the URL's filters that did not parse (they are off).
 */
export function FilterPanel({
  label,
  action,
  fields,
  ignored,
  invalidValues,
}: {
  label: string;
  /** The list page the filter applies to, written without its workspace; "Clear filters" leads back to it. */
  action: string;
  fields: FilterField[];
  /** The names of the URL's filters that did not parse. */
  ignored: string[];
  /** The rest of the warning's sentence: why a value is not valid. */
  invalidValues: ReactNode;
}) {
  const labelOf = (name: string) => fields.find((field) => field.name === name)?.label ?? name;
  return (
    <ConsoleForm
      role="search"
      aria-label={label}
      action={action}
      method="get"
      className="mb-4 rounded-lg border border-zinc-200 bg-white p-3"
    >
      <div className="flex flex-wrap items-end gap-3">
        {fields.map((field) => (
          <FilterFieldControl key={field.id} field={field} />
        ))}
        <FilterActions clearHref={action} isActive={fields.some((field) => field.value !== undefined)} />
      </div>
      {ignored.length > 0 && (
        <Alert tone="warning">
          Not applied: {ignored.map(labelOf).join(", ")} — {invalidValues}
        </Alert>
      )}
    </ConsoleForm>
  );
}

function FilterFieldControl({ field }: { field: FilterField }) {
  const { id, name, label, value } = field;
  switch (field.kind) {
    case "text":
      return <TextFilterField {...field} />;
    case "select":
      return (
        <SelectField id={id} name={name} label={label} className={field.className} defaultValue={value ?? ""}>
          {field.options}
        </SelectField>
      );
    case "day":
      // Filter rows give days one width; the URL holds the day, in UTC.
      return (
        <InputField
          id={id}
          name={name}
          label={`${label} (UTC${field.note ? `, ${field.note}` : ""})`}
          className="w-40 pb-5"
          type="date"
          defaultValue={value ?? ""}
        />
      );
  }
}

/** Apply, and (while a filter is on) a link back to the unfiltered list. */
export function FilterActions({ clearHref, isActive }: { clearHref: string; isActive: boolean }) {
  return (
    <div className="flex gap-2 pb-5">
      <button
        type="submit"
        className={`${BUTTON} border-transparent bg-blue-700 font-medium text-white hover:bg-blue-800`}
      >
        Apply
      </button>
      {isActive && (
        <ConsoleLink href={clearHref} className={`${BUTTON} border-zinc-300 bg-white text-zinc-800 hover:bg-zinc-50`}>
          Clear filters
        </ConsoleLink>
      )}
    </div>
  );
}

/**
 * A text field of a filter form. With suggestions, a datalist offers the known values; the filter still
 * matches what is typed, so a value the suggestions do not hold works too.
 */
function TextFilterField({
  id,
  name,
  label,
  hint,
  className,
  value,
  placeholder,
  suggestions,
}: FilterField & TextFilterOptions) {
  const listId = suggestions ? `${id}-suggestions` : undefined;
  return (
    <Field id={id} label={label} hint={hint} className={className}>
      <Input
        id={id}
        name={name}
        list={listId}
        defaultValue={value ?? ""}
        placeholder={placeholder}
        aria-describedby={hint ? `${id}-hint` : undefined}
        autoComplete="off"
      />
      {suggestions && (
        <datalist id={listId}>
          {suggestions.map((suggestion) => (
            <option key={suggestion} value={suggestion} />
          ))}
        </datalist>
      )}
    </Field>
  );
}

export type FilterChip = { label: string; href: string; isActive: boolean; count?: number };

/** Chips that filter a list, one of them active: links, so the filter is in the URL and works without JavaScript. */
export function FilterChips({ label, chips }: { label: string; chips: FilterChip[] }) {
  return (
    <nav aria-label={label} className="mb-4 flex flex-wrap gap-1.5">
      {chips.map((chip) => (
        <ConsoleLink
          key={chip.href}
          href={chip.href}
          aria-current={chip.isActive ? "page" : undefined}
          className={`rounded-full border px-2.5 py-0.5 text-xs focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-blue-600 ${
            chip.isActive
              ? "border-zinc-900 bg-zinc-900 text-white"
              : "border-zinc-300 bg-white text-zinc-700 hover:border-zinc-500"
          }`}
        >
          {chip.label}
          {chip.count !== undefined && (
            <span className={`ml-1.5 tabular-nums ${chip.isActive ? "text-zinc-300" : "text-zinc-500"}`}>
              {chip.count.toLocaleString("en-US")}
            </span>
          )}
        </ConsoleLink>
      ))}
    </nav>
  );
}
