import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { createNotesServer } from "./mcp-notes";

// The notes MCP server over stdio, spawned by tests: `node --import tsx tests/support/mcp-server.ts`.
// MCP_NOTES_LEDGER (optional): a file every applied create_note is appended to.

void createNotesServer({ ledger: process.env.MCP_NOTES_LEDGER }).connect(new StdioServerTransport());
