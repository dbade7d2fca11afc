// Tools an admin registers at run time (docs/design.md): HTTP endpoints and MCP server tools, each with
// its own capability and effect semantics, resolved by name at every use (RuntimeOptions.resolveTool).
// Registering, disabling and enabling one are commands (lib/commands/{register,disable,enable}-tool.ts).
export { findRegisteredTools } from "./find-registered-tools";
export { createMcpClientPool, listMcpTools, type McpClientPool, type McpToolInfo } from "./mcp-client";
export { presentRegisteredTool, type RegisteredToolView, type ToolSummary } from "./present";
export { createRegisteredToolResolver } from "./resolver";
export {
  discoverMcpToolsSchema,
  mcpServerSchema,
  registerToolSchema,
  type McpServerConfig,
  type RegisterToolInput,
} from "./schemas";
export {
  sharedMcpPool,
  toolFromRegistration,
  type RegisteredToolOptions,
  type ToolRegistrationRow,
} from "./tool-from-registration";
