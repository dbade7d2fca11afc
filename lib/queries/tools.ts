// Read model of the admin "Tools" page: the tool registry (built-in and registered tools).
import { getDb, type Db } from "@/lib/db";
import type { ToolDefinition } from "@/lib/runtime";
import { createBuiltInTools } from "@/lib/tools";
import { findRegisteredTools, type RegisteredToolView, type ToolSummary } from "@/lib/tools/registered";
import { presentBuiltInTool } from "@/lib/tools/registered/present";

export type ToolRow = ToolSummary & {
  /** Registered tools only: the registration to disable or enable. */
  id: string | null;
  /** The impact sentence a reviewer reads: a built-in tool's, filled with example arguments; a registered tool's template. */
  impact: string | null;
  config: Record<string, unknown> | null;
  createdBy: string | null;
  disabledAt: Date | null;
  disabledBy: string | null;
};

/** Example arguments (required properties only) from a JSON Schema, only to show what a tool's impact sentence reads like. */
export function exampleArgs(schema: unknown): Record<string, unknown> {
  const { properties = {}, required } = (schema ?? {}) as {
    properties?: Record<string, { type?: string }>;
    required?: string[];
  };
  const names = Object.keys(properties).filter((name) => !Array.isArray(required) || required.includes(name));
  return Object.fromEntries(
    names.map((name) => {
      const type = properties[name]?.type;
      return [
        name,
        type === "integer" || type === "number"
          ? 24000
          : type === "boolean"
            ? true
            : type === "array"
              ? []
              : `‹${name}›`,
      ];
    }),
  );
}

function exampleImpact(tool: ToolDefinition, inputSchema: unknown): string | null {
  try {
    return tool.impact(exampleArgs(inputSchema));
  } catch {
    return null; // an impact function that needs real arguments: shown without an example
  }
}

/** Every tool: built-in ones first (by name), then registered ones, disabled included. */
export async function findToolRegistry(db: Db = getDb()): Promise<ToolRow[]> {
  const builtIn = createBuiltInTools({ sandboxUrl: "http://unused" })
    .map((tool): ToolRow => {
      const summary = presentBuiltInTool(tool);
      return {
        ...summary,
        id: null,
        impact: exampleImpact(tool, summary.inputSchema),
        config: null,
        createdBy: null,
        disabledAt: null,
        disabledBy: null,
      };
    })
    .sort((a, b) => a.name.localeCompare(b.name));
  const registered = (await findRegisteredTools(db, { includeDisabled: true })).map(toRow);
  return [...builtIn, ...registered];
}

function toRow(tool: RegisteredToolView): ToolRow {
  return {
    id: tool.id,
    name: tool.name,
    description: tool.description,
    capability: tool.capability,
    semantics: tool.semantics,
    source: tool.source,
    inputSchema: tool.inputSchema,
    impact: tool.impactTemplate,
    config: tool.config,
    createdBy: tool.createdBy,
    disabledAt: tool.disabledAt,
    disabledBy: tool.disabledBy,
  };
}

/** The tool names an agent can be granted: built-in and enabled registered tools. */
export async function findToolNames(db: Db = getDb()): Promise<string[]> {
  const rows = await findToolRegistry(db);
  return rows.filter((t) => !t.disabledAt).map((t) => t.name);
}

/** Every tool an agent can be given: the built-in ones, then the registered ones (with their settings). */
export async function listTools(
  db: Db,
  opts: { includeDisabled?: boolean } = {},
): Promise<Array<ToolSummary | RegisteredToolView>> {
  const builtIn = createBuiltInTools({ sandboxUrl: "http://unused" }).map(presentBuiltInTool);
  return [...builtIn, ...(await findRegisteredTools(db, opts))];
}
