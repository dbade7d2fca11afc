import { isRecord, leafFields, type FormField, type FormModel } from "./schema-form";

// The edit form's values (one string or boolean per leaf path) ↔ the tool's arguments, and the
// client-side checks (required, type, bounds, length, pattern, enum). The server checks again with the
// tool's zod schema: this only saves a round trip and says what is wrong next to the field.

export type FormValues = Record<string, string | boolean>;
export type FieldErrors = Record<string, string[]>;

function getPath(value: unknown, path: string): unknown {
  return path.split(".").reduce<unknown>((node, key) => (isRecord(node) ? node[key] : undefined), value);
}

/** The form's starting values: the proposed arguments. */
export function initialFormValues(model: NonNullable<FormModel>, args: unknown): FormValues {
  const values: FormValues = {};
  for (const field of leafFields(model.fields)) {
    const value = getPath(args, field.path);
    if (field.kind === "boolean") values[field.path] = value === true;
    else if (field.kind === "json") values[field.path] = value === undefined ? "" : JSON.stringify(value, null, 2);
    else values[field.path] = value === undefined || value === null ? "" : String(value);
  }
  return values;
}

/** The arguments the form describes, or the errors that keep it from being sent (keyed by path). */
export function readFormValues(
  model: NonNullable<FormModel>,
  values: FormValues,
): { ok: true; args: Record<string, unknown> } | { ok: false; fieldErrors: FieldErrors } {
  const fieldErrors: FieldErrors = {};
  const args = readObject(model.fields, values, fieldErrors);
  return Object.keys(fieldErrors).length > 0 ? { ok: false, fieldErrors } : { ok: true, args };
}

function readObject(fields: FormField[], values: FormValues, errors: FieldErrors): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of fields) {
    const result = field.kind === "object" ? readNested(field, values, errors) : readLeaf(field, values[field.path]);
    if ("error" in result) (errors[field.path] ??= []).push(result.error);
    else if (result.value !== undefined) out[field.name] = result.value;
  }
  return out;
}

function readNested(
  field: Extract<FormField, { kind: "object" }>,
  values: FormValues,
  errors: FieldErrors,
): { value: unknown } {
  const isBlank = leafFields(field.fields).every(
    (leaf) => values[leaf.path] === "" || values[leaf.path] === undefined || values[leaf.path] === false,
  );
  // An optional object left empty is left out, rather than sent with its required parts missing.
  if (!field.isRequired && isBlank) return { value: undefined };
  return { value: readObject(field.fields, values, errors) };
}

type Read = { value: unknown } | { error: string };

/** One leaf: the typed value (undefined = leave the argument out) or the first thing wrong with it. */
export function readLeaf(field: FormField, raw: string | boolean | undefined): Read {
  if (field.kind === "boolean") return { value: raw === true };
  const text = typeof raw === "string" ? raw : "";
  if (text.trim() === "") return field.isRequired ? { error: "Required." } : { value: undefined };
  switch (field.kind) {
    case "string":
      return checkString(field, text);
    case "number":
    case "integer":
      return checkNumber(field, text);
    case "enum": {
      const option = field.options.find((o) => String(o) === text);
      return option === undefined ? { error: `Choose one of: ${field.options.join(", ")}.` } : { value: option };
    }
    case "json":
      try {
        return { value: JSON.parse(text) };
      } catch {
        return { error: "Not valid JSON." };
      }
    default:
      return { value: undefined };
  }
}

function checkString(field: Extract<FormField, { kind: "string" }>, text: string): Read {
  const length = [...text].length;
  if (field.minLength !== undefined && length < field.minLength)
    return { error: `At least ${field.minLength} character${field.minLength === 1 ? "" : "s"}.` };
  if (field.maxLength !== undefined && length > field.maxLength)
    return { error: `At most ${field.maxLength} characters.` };
  if (field.pattern !== undefined && !matches(field.pattern, text))
    return {
      error:
        field.format === "email"
          ? "Not a valid email address."
          : `Does not match the expected format (${field.pattern}).`,
    };
  return { value: text };
}

function checkNumber(field: Extract<FormField, { kind: "number" | "integer" }>, text: string): Read {
  const value = Number(text.trim());
  if (!Number.isFinite(value)) return { error: "Enter a number." };
  if (field.kind === "integer" && !Number.isInteger(value)) return { error: "Enter a whole number." };
  if (field.minimum !== undefined && value < field.minimum) return { error: `Must be at least ${field.minimum}.` };
  if (field.exclusiveMinimum !== undefined && value <= field.exclusiveMinimum)
    return { error: `Must be more than ${field.exclusiveMinimum}.` };
  if (field.maximum !== undefined && value > field.maximum) return { error: `Must be at most ${field.maximum}.` };
  if (field.exclusiveMaximum !== undefined && value >= field.exclusiveMaximum)
    return { error: `Must be less than ${field.exclusiveMaximum}.` };
  return { value };
}

/** JSON Schema patterns are ECMAScript regexes; one this browser cannot compile is left to the server. */
function matches(pattern: string, text: string): boolean {
  try {
    return new RegExp(pattern, "u").test(text);
  } catch {
    try {
      return new RegExp(pattern).test(text);
    } catch {
      return true;
    }
  }
}
