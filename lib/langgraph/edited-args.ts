import { z } from "zod";
import type { ToolDefinition } from "@/lib/runtime/types";

// The Agent Inbox edits every argument in a text box and sends each back as a string ("24000", "true",
// '{"a":1}'). Each top-level argument is read against the tool's input schema: where the schema does not
// take a string there, a string is JSON-decoded; one that does not decode is left as it is, so the
// tool's schema refuses it with a field error instead of a guess. The engine validates the result again.

type PropertySchema = {
  type?: string | string[];
  anyOf?: PropertySchema[];
  oneOf?: PropertySchema[];
  enum?: unknown[];
  const?: unknown;
};

/** Whether a property's schema accepts a string (or says nothing about its type: then the string is kept). */
function acceptsString(schema: PropertySchema | undefined): boolean {
  if (!schema) return true;
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) return alternatives.some(acceptsString);
  if (schema.enum) return schema.enum.some((value) => typeof value === "string");
  if (schema.const !== undefined) return typeof schema.const === "string";
  if (schema.type === undefined) return true;
  return (Array.isArray(schema.type) ? schema.type : [schema.type]).includes("string");
}

function propertiesOf(tool: Pick<ToolDefinition, "input">): Record<string, PropertySchema> {
  try {
    const schema = z.toJSONSchema(tool.input, { io: "input", unrepresentable: "any" }) as {
      properties?: Record<string, PropertySchema>;
    };
    return schema.properties ?? {};
  } catch {
    return {}; // a schema JSON Schema cannot express: strings are kept, the tool's zod schema decides
  }
}

export function readEditedArgs(
  tool: Pick<ToolDefinition, "input">,
  args: Record<string, unknown>,
): Record<string, unknown> {
  const properties = propertiesOf(tool);
  return Object.fromEntries(
    Object.entries(args).map(([key, value]) => {
      if (typeof value !== "string" || acceptsString(properties[key])) return [key, value];
      try {
        return [key, JSON.parse(value)];
      } catch {
        return [key, value];
      }
    }),
  );
}
