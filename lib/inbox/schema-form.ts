// A tool's JSON Schema (made on the server with z.toJSONSchema) → a form model the edit form renders:
// one input per string/number/integer/boolean/enum property, nested objects as fieldsets, and JSON
// text for anything else (arrays, unions, nullable values). Pure: used by the client and by tests.

export type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  enum?: unknown[];
  const?: unknown;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  title?: string;
  description?: string;
  /** The tool does not let a reviewer edit it (ToolDefinition.editableFields). */
  readOnly?: boolean;
};

type FieldBase = {
  path: string;
  name: string;
  label: string;
  isRequired: boolean;
  isReadOnly?: boolean;
  description?: string;
};
export type EnumOption = string | number | boolean;

export type FormField =
  | (FieldBase & { kind: "string"; minLength?: number; maxLength?: number; pattern?: string; format?: string })
  | (FieldBase & {
      kind: "number" | "integer";
      minimum?: number;
      maximum?: number;
      exclusiveMinimum?: number;
      exclusiveMaximum?: number;
    })
  | (FieldBase & { kind: "boolean" })
  | (FieldBase & { kind: "enum"; options: EnumOption[] })
  | (FieldBase & { kind: "object"; fields: FormField[] })
  | (FieldBase & { kind: "json" });

/** The form for a tool's arguments; null when the schema is not an object with properties (edit as JSON). */
export type FormModel = { fields: FormField[] } | null;

/** zod writes int64 bounds on every integer: they say nothing a person needs to read. */
const NO_LIMIT = Number.MAX_SAFE_INTEGER;

export function buildFormModel(schema: unknown): FormModel {
  if (!isObjectSchema(schema)) return null;
  return { fields: objectFields(schema, "") };
}

function isObjectSchema(schema: unknown): schema is JsonSchema & { properties: Record<string, JsonSchema> } {
  if (!isRecord(schema)) return false;
  return schema.type === "object" && isRecord(schema.properties);
}

function objectFields(schema: JsonSchema & { properties: Record<string, JsonSchema> }, prefix: string): FormField[] {
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties).map(([name, property]) =>
    toField(name, property ?? {}, prefix ? `${prefix}.${name}` : name, required.has(name)),
  );
}

function toField(name: string, schema: JsonSchema, path: string, isRequired: boolean): FormField {
  const base: FieldBase = {
    path,
    name,
    label: schema.title ?? humanize(name),
    isRequired,
    ...(schema.readOnly ? { isReadOnly: true } : {}),
    ...(schema.description ? { description: schema.description } : {}),
  };
  const enumValues = schema.enum ?? (schema.const !== undefined ? [schema.const] : undefined);
  if (enumValues && enumValues.length > 0 && enumValues.every(isEnumOption))
    return { ...base, kind: "enum", options: enumValues as EnumOption[] };
  if (schema.type === "string") {
    return { ...base, kind: "string", ...pick(schema, ["minLength", "maxLength", "pattern", "format"]) };
  }
  if (schema.type === "number" || schema.type === "integer") {
    const bounds = pick(schema, ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"]);
    for (const key of Object.keys(bounds) as Array<keyof typeof bounds>)
      if (Math.abs(bounds[key] as number) >= NO_LIMIT) delete bounds[key];
    return { ...base, kind: schema.type, ...bounds };
  }
  if (schema.type === "boolean") return { ...base, kind: "boolean" };
  if (isObjectSchema(schema)) return { ...base, kind: "object", fields: objectFields(schema, path) };
  return { ...base, kind: "json" };
}

function pick<K extends keyof JsonSchema>(schema: JsonSchema, keys: K[]): Partial<Pick<JsonSchema, K>> {
  const out: Partial<Pick<JsonSchema, K>> = {};
  for (const key of keys) if (schema[key] !== undefined) out[key] = schema[key];
  return out;
}

function isEnumOption(value: unknown): value is EnumOption {
  return typeof value === "string" || typeof value === "number" || typeof value === "boolean";
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** "amountCents" → "Amount cents", "card_last4" → "Card last4". */
export function humanize(name: string): string {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/[_-]+/g, " ")
    .trim()
    .toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** Every leaf field (objects flattened), in form order. */
export function leafFields(fields: FormField[]): FormField[] {
  return fields.flatMap((field) => (field.kind === "object" ? leafFields(field.fields) : [field]));
}
