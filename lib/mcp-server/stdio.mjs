// `tether mcp`: Tether as a stdio MCP server, for clients that start their servers as processes. It is
// a relay to the Tether at TETHER_URL: every message from stdin goes to its /api/mcp over Streamable
// HTTP with TETHER_TOKEN as the bearer, and every message back (results, task status, elicitations of
// packets) goes to stdout. So it offers exactly the tools, tasks and elicitations /api/mcp offers, as
// the token's owner, and keeps nothing itself. Plain JavaScript: bin/tether.mjs runs it with node alone.
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { withRequestHeaders } from "./request-headers.mjs";

const log = (message) => process.stderr.write(`tether mcp: ${message}\n`);

export async function runStdioRelay({ baseUrl, token, stdin = process.stdin, stdout = process.stdout }) {
  const endpoint = new URL(`${baseUrl.replace(/\/$/, "")}/api/mcp`);
  // A 2026-07-28 request (no initialize; its version in _meta) goes out with the headers that revision asks for.
  const remote = new StreamableHTTPClientTransport(endpoint, {
    requestInit: { headers: token ? { authorization: `Bearer ${token}` } : {} },
    fetch: withRequestHeaders(),
  });
  const local = new StdioServerTransport(stdin, stdout);
  const initializeIds = new Set();
  let closing = false;

  const shutdown = async (code = 0) => {
    if (closing) return;
    closing = true;
    await Promise.allSettled([remote.close(), local.close()]);
    process.exit(code);
  };

  local.onmessage = (message) => {
    if (message.method === "initialize" && message.id !== undefined) initializeIds.add(message.id);
    remote.send(message).catch((error) => {
      const reason = describe(error);
      log(`${message.method ?? "message"} failed: ${reason}`);
      // A request that could not be delivered is answered, so the client does not wait for ever.
      if (message.method && message.id !== undefined) {
        local
          .send({
            jsonrpc: "2.0",
            id: message.id,
            error: { code: -32000, message: `Tether at ${endpoint.origin} refused or could not be reached: ${reason}` },
          })
          .catch(() => {});
      }
    });
  };
  remote.onmessage = (message) => {
    // Later requests must name the protocol version the initialize answer chose (a header of Streamable HTTP).
    if (message.id !== undefined && initializeIds.delete(message.id) && message.result?.protocolVersion)
      remote.setProtocolVersion(message.result.protocolVersion);
    local.send(message).catch((error) => log(`could not write to stdout: ${describe(error)}`));
  };
  remote.onerror = (error) => log(describe(error));
  local.onerror = (error) => log(describe(error));
  local.onclose = () => void shutdown(0);
  process.stdin.on("end", () => void shutdown(0));

  await remote.start();
  await local.start();
}

function describe(error) {
  if (error?.code === 401 || /\b401\b/.test(String(error?.message)))
    return "401: the token is missing, invalid, revoked or expired (TETHER_TOKEN)";
  return error?.cause?.code ?? error?.message ?? String(error);
}
