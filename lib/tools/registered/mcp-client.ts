import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ErrorCode, McpError, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { ToolError } from "@/lib/runtime";
import { AppError } from "@/lib/runtime/errors";
import { egressFetch, findEgressRefusal, type EgressPolicy } from "./egress";
import { assertStdioServerAllowed, McpCommandRefusedError } from "./mcp-commands";
import type { McpServerConfig } from "./schemas";
import { resolveEnvRefs } from "./template";

// Clients of MCP servers (stdio or streamable HTTP). A pool keeps one connected client per server
// configuration, so a stdio server is spawned once and shared by every tool registered from it; a client
// whose connection closes or fails is dropped and the next call connects again.
// Every connection is held to the policy at the moment it is made: a stdio command must be one of
// TETHER_MCP_COMMANDS (mcp-commands.ts), an HTTP server is reached through the egress policy's fetch
// (egress.ts), for every request of the session.

const CLIENT_INFO = { name: "tether", version: "0.1.0" };
const CONNECT_TIMEOUT_MS = 10_000;
const DEFAULT_CALL_TIMEOUT_MS = 30_000;

export type McpToolInfo = { name: string; description: string; inputSchema: Record<string, unknown> };

export type McpCallOptions = { timeoutMs?: number; meta?: Record<string, unknown> };

export type McpClientOptions = {
  /** The egress policy for servers over HTTP; TETHER_TOOL_ALLOWED_HOSTS and node:dns unless given (tests). */
  egress?: EgressPolicy;
};

export type McpClientPool = {
  /** Calls a tool; protocol and transport failures become ToolErrors with an honest outcome. */
  callTool: (
    server: McpServerConfig,
    name: string,
    args: Record<string, unknown>,
    opts?: McpCallOptions,
  ) => Promise<CallToolResult>;
  /** Closes every client (and stops the stdio servers it spawned). */
  close: () => Promise<void>;
  /** How many servers are connected (for tests and health). */
  size: () => number;
};

function transportFor(server: McpServerConfig, opts: McpClientOptions) {
  if (server.transport === "stdio") {
    assertStdioServerAllowed(server); // before anything is spawned
    const env = server.env
      ? Object.fromEntries(Object.entries(server.env).map(([k, v]) => [k, resolveEnvRefs(v)]))
      : undefined;
    return new StdioClientTransport({
      command: server.command,
      args: server.args,
      env,
      cwd: server.cwd,
      stderr: "inherit",
    });
  }
  const headers = Object.fromEntries(Object.entries(server.headers ?? {}).map(([k, v]) => [k, resolveEnvRefs(v)]));
  return new StreamableHTTPClientTransport(new URL(server.url), {
    requestInit: { headers },
    fetch: egressFetch(opts.egress),
  });
}

/** Connects to a server (spawning it for stdio), with a bound on the handshake. */
async function connect(server: McpServerConfig, opts: McpClientOptions, onClose?: () => void): Promise<Client> {
  const transport = transportFor(server, opts);
  const client = new Client(CLIENT_INFO);
  client.onclose = onClose;
  try {
    await client.connect(transport, { timeout: CONNECT_TIMEOUT_MS });
  } catch (error) {
    await client.close().catch(() => {});
    throw error;
  }
  return client;
}

/** A stable key for "the same server": its transport settings, in a fixed key order. */
export function serverKey(server: McpServerConfig): string {
  return server.transport === "stdio"
    ? JSON.stringify([
        "stdio",
        server.command,
        server.args,
        Object.entries(server.env ?? {}).sort(),
        server.cwd ?? null,
      ])
    : JSON.stringify(["http", server.url, Object.entries(server.headers ?? {}).sort()]);
}

export function createMcpClientPool(opts: McpClientOptions = {}): McpClientPool {
  const clients = new Map<string, Promise<Client>>();

  const drop = (key: string, entry: Promise<Client>) => {
    if (clients.get(key) !== entry) return;
    clients.delete(key);
    void entry.then((c) => c.close()).catch(() => {});
  };

  const get = (server: McpServerConfig): Promise<Client> => {
    const key = serverKey(server);
    const existing = clients.get(key);
    if (existing) return existing;
    const entry: Promise<Client> = connect(server, opts, () => drop(key, entry));
    clients.set(key, entry);
    entry.catch(() => drop(key, entry)); // a failed connect is not cached
    return entry;
  };

  return {
    async callTool(server, name, args, opts = {}) {
      let client: Client;
      try {
        client = await get(server);
      } catch (error) {
        // The call was never sent: nothing can have happened.
        const refused = policyRefusal(error);
        if (refused)
          throw new ToolError("rejected", `MCP server ${describeServer(server)}: ${refused}`, "not_applied", {
            refused,
          });
        throw new ToolError(
          "network",
          `MCP server ${describeServer(server)}: could not connect (${describeConnectError(error)})`,
          "not_applied",
        );
      }
      try {
        const result = await client.callTool(
          { name, arguments: args, ...(opts.meta ? { _meta: opts.meta } : {}) },
          undefined,
          { timeout: opts.timeoutMs ?? DEFAULT_CALL_TIMEOUT_MS },
        );
        return result as CallToolResult;
      } catch (error) {
        const toolError = callError(`MCP ${describeServer(server)} ${name}`, error);
        // A lost connection or session: start afresh next time (a slow or failing tool keeps its connection).
        if (isConnectionLost(error)) {
          const key = serverKey(server);
          const entry = clients.get(key);
          if (entry) drop(key, entry);
        }
        throw toolError;
      }
    },
    async close() {
      const all = [...clients.values()];
      clients.clear();
      await Promise.all(all.map((entry) => entry.then((c) => c.close()).catch(() => {})));
    },
    size: () => clients.size,
  };
}

/** The tools a server offers, for an admin to register one by one. Uses its own short-lived connection. */
export async function listMcpTools(server: McpServerConfig, opts: McpClientOptions = {}): Promise<McpToolInfo[]> {
  let client: Client;
  try {
    client = await connect(server, opts);
  } catch (error) {
    if (error instanceof McpCommandRefusedError) {
      throw new AppError("INVALID_INPUT", {
        message: `MCP discovery refused for ${describeServer(server)}: ${error.message}`,
        userMessage: error.message,
        fieldErrors: Object.fromEntries(error.refusals.map((r) => [r.path.join("."), [r.message]])),
      });
    }
    const field = server.transport === "stdio" ? "command" : "url";
    throw new AppError("INVALID_INPUT", {
      message: `MCP discovery failed for ${describeServer(server)}: ${error instanceof Error ? error.message : String(error)}`,
      userMessage: `Could not connect to the MCP server (${describeConnectError(error)}).`,
      fieldErrors: { [field]: [`Could not connect to the MCP server (${describeConnectError(error)}).`] },
      cause: error,
    });
  }
  try {
    const tools: McpToolInfo[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor ? { cursor } : undefined, { timeout: CONNECT_TIMEOUT_MS });
      for (const t of page.tools)
        tools.push({
          name: t.name,
          description: t.description ?? t.title ?? "",
          inputSchema: t.inputSchema as Record<string, unknown>,
        });
      cursor = page.nextCursor;
    } while (cursor && tools.length < 1000);
    return tools;
  } catch (error) {
    throw new AppError("INVALID_INPUT", {
      message: `MCP tools/list failed for ${describeServer(server)}: ${error instanceof Error ? error.message : String(error)}`,
      userMessage: "The MCP server connected but did not list its tools.",
      cause: error,
    });
  } finally {
    await client.close().catch(() => {});
  }
}

/** A protocol or transport failure as a ToolError: refusals did nothing; anything else may have acted. */
function callError(what: string, error: unknown): ToolError {
  if (error instanceof ToolError) return error;
  const refused = policyRefusal(error);
  if (refused) return new ToolError("rejected", `${what}: ${refused}`, "not_applied", { refused });
  if (error instanceof McpError) {
    const message = `${what}: ${error.message}`;
    switch (error.code) {
      case ErrorCode.InvalidParams:
      case ErrorCode.MethodNotFound:
      case ErrorCode.InvalidRequest:
      case ErrorCode.ParseError:
        return new ToolError("rejected", message, "not_applied", { code: error.code });
      case ErrorCode.RequestTimeout:
        return new ToolError("timeout", `${what}: no answer in time`, "unknown");
      case ErrorCode.ConnectionClosed:
        return new ToolError("network", `${what}: the connection closed during the call`, "unknown");
      default:
        return new ToolError("server", message, "unknown", { code: error.code });
    }
  }
  if (error instanceof StreamableHTTPError && error.code !== undefined && error.code >= 400 && error.code < 500) {
    return new ToolError("rejected", `${what}: HTTP ${error.code}`, "not_applied", { status: error.code });
  }
  return new ToolError("network", `${what}: ${error instanceof Error ? error.message : String(error)}`, "unknown");
}

function isConnectionLost(error: unknown): boolean {
  if (error instanceof McpError) return error.code === ErrorCode.ConnectionClosed;
  if (error instanceof StreamableHTTPError)
    return error.code === undefined || error.code === 404 || error.code === 400 || error.code >= 500;
  return true; // a transport-level failure (socket, spawn, stream)
}

function describeServer(server: McpServerConfig): string {
  if (server.transport === "http") {
    try {
      const u = new URL(server.url);
      return `${u.origin}${u.pathname}`;
    } catch {
      return "(invalid URL)";
    }
  }
  return server.command.split(/[\\/]/).at(-1) ?? server.command;
}

/** The policy refusal (egress or stdio command) behind an error: nothing was sent or started. */
function policyRefusal(error: unknown): string | undefined {
  if (error instanceof McpCommandRefusedError) return error.message;
  return findEgressRefusal(error)?.message;
}

/** A short, safe reason a connection failed (no stack, no environment). */
function describeConnectError(error: unknown): string {
  const refused = policyRefusal(error);
  if (refused) return refused;
  const code = (error as { code?: unknown } | null)?.code;
  if (code === "ENOENT") return "command not found";
  if (code === "EACCES") return "command not executable";
  if (error instanceof McpError && error.code === ErrorCode.RequestTimeout)
    return `no answer within ${CONNECT_TIMEOUT_MS / 1000} s`;
  if (error instanceof McpError && error.code === ErrorCode.ConnectionClosed)
    return "the server exited during the handshake";
  const cause = (error as { cause?: { code?: unknown } } | null)?.cause?.code;
  if (cause === "ECONNREFUSED") return "connection refused";
  if (typeof cause === "string") return cause;
  if (error instanceof StreamableHTTPError && error.code) return `HTTP ${error.code}`;
  return "the MCP handshake failed";
}
