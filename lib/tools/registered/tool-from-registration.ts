import { canonicalJson, sha256, type Capability, type EffectSemantics, type ToolDefinition } from "@/lib/runtime";
import { AppError } from "@/lib/runtime/errors";
import { httpTool } from "./http-tool";
import { argsSchemaFromJsonSchema } from "./json-schema";
import { createMcpClientPool, type McpClientPool } from "./mcp-client";
import { mcpTool } from "./mcp-tool";
import { httpToolConfigSchema, mcpToolConfigSchema, type HttpToolConfig, type McpToolConfig } from "./schemas";
import { fillText, fillUrl } from "./template";

// A stored registration → the ToolDefinition the engine runs. Nothing here is cached: the resolver
// builds a definition from the row it just read, so an admin's change applies at the next use.

export type ToolRegistrationRow = {
  id: string;
  name: string;
  kind: string;
  description: string;
  capability: string;
  semantics: string;
  inputSchema: string;
  config: string;
  impactTemplate: string | null;
  disabledAt: Date | null;
};

export type RegisteredToolOptions = {
  /** Where MCP clients are kept; the process-wide pool unless given (tests pass their own). */
  mcp?: McpClientPool;
};

// One pool per process, kept across Next.js dev-mode module reloads so stdio servers are not spawned twice.
const globalForMcp = globalThis as unknown as { tetherMcpPool?: McpClientPool };
export function sharedMcpPool(): McpClientPool {
  return (globalForMcp.tetherMcpPool ??= createMcpClientPool());
}

export function toolFromRegistration(row: ToolRegistrationRow, opts: RegisteredToolOptions = {}): ToolDefinition {
  const args = argsSchemaFromJsonSchema(parseJson(row, row.inputSchema, "inputSchema"));
  if (!args.ok) throw corrupt(row, args.reason);
  const base = {
    name: row.name,
    description: row.description,
    capability: row.capability as Capability,
    semantics: row.semantics as EffectSemantics,
    input: args.schema,
    registration: registrationFingerprint(row),
  };
  if (row.kind === "http") {
    const config = parseConfig(row, httpToolConfigSchema);
    return httpTool(
      {
        ...base,
        impact: impact(
          row,
          (args) => `calls ${config.method} ${hostAndPath(fillUrl(config.url, args).url)} (${row.name})`,
        ),
      },
      config,
    );
  }
  if (row.kind === "mcp") {
    const config = parseConfig(row, mcpToolConfigSchema);
    return mcpTool(
      {
        ...base,
        impact: impact(row, () => `calls ${config.tool} on MCP server ${serverName(row.name, config)} (${row.name})`),
      },
      config,
      opts.mcp ?? sharedMcpPool(),
    );
  }
  throw corrupt(row, `unknown kind ${row.kind}`);
}

/** What the registration makes the tool do: an approval given under one fingerprint does not carry over to another. */
function registrationFingerprint(row: ToolRegistrationRow): string {
  const { id, kind, capability, semantics, inputSchema, config } = row;
  return `${id}:${sha256(canonicalJson({ kind, capability, semantics, inputSchema, config })).slice(0, 16)}`;
}

function impact(
  row: ToolRegistrationRow,
  fallback: (args: Record<string, unknown>) => string,
): (args: Record<string, unknown>) => string {
  const template = row.impactTemplate;
  return (args) => (template ? fillText(template, args ?? {}) : fallback(args ?? {}));
}

function parseConfig<T extends HttpToolConfig | McpToolConfig>(
  row: ToolRegistrationRow,
  schema: { safeParse: (v: unknown) => { success: true; data: T } | { success: false } },
): T {
  const parsed = schema.safeParse(parseJson(row, row.config, "config"));
  if (!parsed.success) throw corrupt(row, "its config does not match its kind");
  return parsed.data;
}

function parseJson(row: ToolRegistrationRow, text: string, field: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw corrupt(row, `${field} is not JSON`);
  }
}

function corrupt(row: ToolRegistrationRow, why: string) {
  return new AppError("INVALID_STATE", {
    message: `registered tool ${row.name} (${row.id}) cannot be used: ${why}`,
    userMessage: `The registered tool ${row.name} is misconfigured.`,
  });
}

function hostAndPath(url: string): string {
  try {
    const u = new URL(url);
    return decodeURIComponent(`${u.host}${u.pathname}`);
  } catch {
    return url;
  }
}

function serverName(name: string, config: McpToolConfig): string {
  return name.split(".")[1] ?? (config.transport === "http" ? hostAndPath(config.url) : config.command);
}
