import type { ToolDefinition } from "@/lib/runtime";

/** The tools agents may call. Built-in, HTTP and MCP tools register here. */
export const builtInTools: ToolDefinition[] = [];
