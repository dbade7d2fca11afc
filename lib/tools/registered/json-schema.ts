import { z } from "zod";

// A registered tool's arguments are described by a JSON Schema (what an admin pastes, what an MCP
// server publishes). zod 4.6 converts it (`z.fromJSONSchema`), so the engine checks arguments the same
// way as for built-in tools and a mismatch comes back to the agent as INVALID_ARGS with field errors.

export type JsonSchemaObject = Record<string, unknown>;

/** The zod schema for a tool's arguments, or a reason the JSON Schema cannot be used. */
export function argsSchemaFromJsonSchema(
  schema: unknown,
): { ok: true; schema: z.ZodType } | { ok: false; reason: string } {
  if (!isPlainObject(schema)) return { ok: false, reason: "The input schema must be a JSON Schema object." };
  if (schema.type !== "object")
    return {
      ok: false,
      reason: 'The input schema must describe an object: { "type": "object", "properties": { … } }.',
    };
  try {
    return { ok: true, schema: z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]) };
  } catch (error) {
    // zod's message names the unsupported keyword ("Unsupported type: foo"); it is about the schema, not the server.
    return {
      ok: false,
      reason: `The input schema is not a JSON Schema this runtime can check: ${error instanceof Error ? error.message : String(error)}.`,
    };
  }
}

/** The property names a JSON Schema object declares (for checking `{{placeholders}}`). */
export function schemaProperties(schema: unknown): Set<string> {
  const properties = isPlainObject(schema) && isPlainObject(schema.properties) ? schema.properties : {};
  return new Set(Object.keys(properties));
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
