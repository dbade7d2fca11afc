import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { createNotesServer, type Note } from "./mcp-notes";

// The notes MCP server over streamable HTTP (stateless: a fresh server per request, one shared note
// store), on a node:http server in the test process.

export async function startMcpHttpServer(opts: { ledger?: string } = {}) {
  const notes = new Map<string, Note>();
  const server = createServer(async (req, res) => {
    if (new URL(req.url ?? "/", "http://x").pathname !== "/mcp") {
      res.writeHead(404).end();
      return;
    }
    const mcp = createNotesServer({ ledger: opts.ledger, notes });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on("close", () => {
      void transport.close();
      void mcp.close();
    });
    await mcp.connect(transport);
    await transport.handleRequest(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    notes,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
