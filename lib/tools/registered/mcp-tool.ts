import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { ToolError, type ToolCallContext, type ToolDefinition } from "@/lib/runtime";
import type { McpClientPool } from "./mcp-client";
import type { McpServerConfig, McpToolConfig } from "./schemas";

// A tool of an MCP server, registered under its own name, capability and semantics.
// A call is `tools/call` with the arguments; the operation travels in `_meta` (tether/operationId,
// tether/idempotencyKey, tether/runId) for servers that deduplicate. The result is the tool's
// structuredContent when it has one, else its text content (parsed as JSON when it is JSON), else the
// raw content list. `isError` results are refusals: ToolError "rejected", nothing applied.

type Base = Pick<
  ToolDefinition,
  "name" | "description" | "capability" | "semantics" | "input" | "impact" | "registration"
>;

export function mcpTool(base: Base, config: McpToolConfig, pool: McpClientPool): ToolDefinition {
  const server = serverOf(config);
  const meta = (ctx: ToolCallContext) => ({
    "tether/operationId": ctx.operationId,
    "tether/idempotencyKey": ctx.idempotencyKey,
    "tether/runId": ctx.runId,
  });
  const tool: ToolDefinition<Record<string, unknown>> = {
    ...base,
    run: async (args, ctx) =>
      resultValue(
        base.name,
        await pool.callTool(server, config.tool, args, { timeoutMs: config.timeoutMs, meta: meta(ctx) }),
      ),
  };
  if (config.lookupTool) {
    const lookupTool = config.lookupTool;
    tool.lookup = async (_args, ctx) => {
      const value = resultValue(
        `${base.name} lookup`,
        await pool.callTool(
          server,
          lookupTool,
          { operationId: ctx.operationId },
          { timeoutMs: config.timeoutMs, meta: meta(ctx) },
        ),
      );
      return isEmpty(value) ? null : value;
    };
  }
  return tool;
}

/** The server part of a tool's config: tools registered from the same server share one client. */
export function serverOf(config: McpToolConfig): McpServerConfig {
  return config.transport === "stdio"
    ? { transport: "stdio", command: config.command, args: config.args, env: config.env, cwd: config.cwd }
    : { transport: "http", url: config.url, headers: config.headers };
}

function resultValue(what: string, result: CallToolResult): unknown {
  const text = (result.content ?? []).flatMap((c) => (c.type === "text" ? [c.text] : [])).join("\n");
  if (result.isError)
    throw new ToolError("rejected", `${what}: ${text.slice(0, 500) || "the tool reported an error"}`, "not_applied", {
      isError: true,
    });
  if (result.structuredContent !== undefined) return result.structuredContent;
  const content = result.content ?? [];
  if (content.length === 0) return null;
  if (content.every((c) => c.type === "text")) {
    try {
      return JSON.parse(text);
    } catch {
      return { text };
    }
  }
  return { content };
}

function isEmpty(value: unknown): boolean {
  if (value === null || value === undefined) return true;
  if (Array.isArray(value)) return value.length === 0;
  if (typeof value === "object") return Object.keys(value).length === 0;
  return false;
}
