import type { ToolDefinition } from "@/lib/runtime";
import { z } from "zod";
import { tryParseJson } from "@/lib/client/json";
import type { ToolRegistrationRow } from "./tool-from-registration";

// How tools are shown to admins and API clients. Secret-bearing settings (header values, an MCP
// server's environment) are masked: only an {{env.…}} reference is shown as it is.

export type ToolSummary = {
  name: string;
  description: string;
  capability: string;
  semantics: string;
  source: "built-in" | "http" | "mcp";
  inputSchema: unknown;
};

export type RegisteredToolView = ToolSummary & {
  id: string;
  config: Record<string, unknown>;
  impactTemplate: string | null;
  createdBy: string;
  createdAt: Date;
  updatedAt: Date;
  disabledAt: Date | null;
  disabledBy: string | null;
};

export function presentBuiltInTool(tool: ToolDefinition): ToolSummary {
  let inputSchema: unknown = null;
  try {
    inputSchema = z.toJSONSchema(tool.input, { unrepresentable: "any" });
  } catch {
    // a schema JSON Schema cannot express: shown without one
  }
  return {
    name: tool.name,
    description: tool.description,
    capability: tool.capability,
    semantics: tool.semantics,
    source: "built-in",
    inputSchema,
  };
}

type StoredRow = ToolRegistrationRow & {
  createdBy: string;
  createdAt: Date;
  updatedAt: Date;
  disabledBy: string | null;
};

export function presentRegisteredTool(row: StoredRow): RegisteredToolView {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    capability: row.capability,
    semantics: row.semantics,
    source: row.kind === "mcp" ? "mcp" : "http",
    inputSchema: tryParseJson(row.inputSchema) ?? null,
    config: maskConfig(tryParseJson(row.config)),
    impactTemplate: row.impactTemplate,
    createdBy: row.createdBy,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    disabledAt: row.disabledAt,
    disabledBy: row.disabledBy,
  };
}

const mask = (values: unknown) =>
  values && typeof values === "object"
    ? Object.fromEntries(
        Object.entries(values as Record<string, unknown>).map(([k, v]) => [
          k,
          typeof v === "string" && /^\{\{\s*env\.[A-Za-z0-9_]+\s*\}\}$/.test(v.trim()) ? v : "••••",
        ]),
      )
    : values;

function maskConfig(config: unknown): Record<string, unknown> {
  if (!config || typeof config !== "object") return {};
  const out = { ...(config as Record<string, unknown>) };
  if (out.headers) out.headers = mask(out.headers);
  if (out.env) out.env = mask(out.env);
  return out;
}
