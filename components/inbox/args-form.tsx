"use client";
import { Field, Input, Select, Textarea, describedBy } from "@/components/ui/field";
import type { FieldErrors, FormValues } from "@/lib/inbox/form-values";
import type { FormField } from "@/lib/inbox/schema-form";

// The edit form's inputs, generated from the tool's schema: one control per field, nested objects
// as fieldsets, JSON text for what has no plain input. Constraints show as hints.

type ArgsFormFieldsProps = {
  fields: FormField[];
  values: FormValues;
  errors: FieldErrors;
  onChange: (path: string, value: string | boolean) => void;
};

export const fieldId = (path: string) => `arg-${path.replaceAll(".", "-")}`;

function hintFor(field: FormField): string | undefined {
  const parts: string[] = [];
  if (field.description) parts.push(field.description);
  if (field.kind === "string") {
    if (field.minLength !== undefined && field.minLength === field.maxLength)
      parts.push(`exactly ${field.minLength} characters`);
    else {
      if (field.minLength !== undefined && field.minLength > 1) parts.push(`at least ${field.minLength} characters`);
      if (field.maxLength !== undefined) parts.push(`at most ${field.maxLength} characters`);
    }
    if (field.format) parts.push(field.format);
    else if (field.pattern) parts.push(`format ${field.pattern}`);
  }
  if (field.kind === "number" || field.kind === "integer") {
    if (field.kind === "integer") parts.push("whole number");
    if (field.exclusiveMinimum !== undefined) parts.push(`more than ${field.exclusiveMinimum}`);
    if (field.minimum !== undefined) parts.push(`at least ${field.minimum}`);
    if (field.exclusiveMaximum !== undefined) parts.push(`less than ${field.exclusiveMaximum}`);
    if (field.maximum !== undefined) parts.push(`at most ${field.maximum}`);
  }
  if (field.kind === "json") parts.push("JSON");
  if (!field.isRequired) parts.push("optional");
  if (field.isReadOnly) parts.push("cannot be edited in review");
  return parts.length > 0 ? parts.join(" · ") : undefined;
}

export function ArgsFormFields({ fields, values, errors, onChange }: ArgsFormFieldsProps) {
  return (
    <>
      {fields.map((field) => (
        <ArgField key={field.path} field={field} values={values} errors={errors} onChange={onChange} />
      ))}
    </>
  );
}

function ArgField({ field, values, errors, onChange }: { field: FormField } & Omit<ArgsFormFieldsProps, "fields">) {
  const id = fieldId(field.path);
  const error = errors[field.path]?.join(" ") ?? null;
  const hint = hintFor(field);
  const label = (
    <>
      {field.label} <span className="font-mono text-xs font-normal text-zinc-500">{field.name}</span>
    </>
  );
  if (field.kind === "object") {
    return (
      <fieldset className="space-y-3 rounded border border-zinc-200 p-3">
        <legend className="px-1 text-sm font-medium text-zinc-800">{label}</legend>
        <ArgsFormFields fields={field.fields} values={values} errors={errors} onChange={onChange} />
      </fieldset>
    );
  }
  if (field.kind === "boolean") {
    return (
      <div>
        <label htmlFor={id} className="flex items-center gap-2 text-sm font-medium text-zinc-800">
          <input
            id={id}
            type="checkbox"
            disabled={field.isReadOnly}
            checked={values[field.path] === true}
            onChange={(e) => onChange(field.path, e.target.checked)}
            className="size-4 focus-visible:outline-2 focus-visible:outline-blue-600"
          />
          {label}
        </label>
      </div>
    );
  }
  const value = typeof values[field.path] === "string" ? (values[field.path] as string) : "";
  const aria = { ...describedBy(id, error, hint), "aria-required": field.isRequired || undefined };
  return (
    <Field id={id} label={label} hint={hint} error={error}>
      {field.kind === "enum" ? (
        <Select
          id={id}
          value={value}
          error={error}
          disabled={field.isReadOnly}
          onChange={(e) => onChange(field.path, e.target.value)}
          {...aria}
        >
          {!field.isRequired && <option value="">—</option>}
          {field.options.map((option) => (
            <option key={String(option)} value={String(option)}>
              {String(option)}
            </option>
          ))}
        </Select>
      ) : field.kind === "json" ? (
        <Textarea
          id={id}
          rows={4}
          spellCheck={false}
          readOnly={field.isReadOnly}
          value={value}
          error={error}
          onChange={(e) => onChange(field.path, e.target.value)}
          className="font-mono text-xs"
          {...aria}
        />
      ) : (
        <Input
          id={id}
          type={field.kind === "string" ? (field.format === "email" ? "email" : "text") : "number"}
          step={field.kind === "integer" ? 1 : field.kind === "number" ? "any" : undefined}
          value={value}
          readOnly={field.isReadOnly}
          error={error}
          onChange={(e) => onChange(field.path, e.target.value)}
          {...aria}
        />
      )}
    </Field>
  );
}
