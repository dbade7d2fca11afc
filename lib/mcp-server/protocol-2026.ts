import { SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/sdk/types.js";

// MCP revision 2026-07-28 ("modern": no initialize handshake; every request names its protocol version and
// its client capabilities in params._meta) beside the 2025-11-25 revision the SDK speaks ("legacy": an
// initialize handshake, then the MCP-Protocol-Version header). Sources, as fetched from
// github.com/modelcontextprotocol/modelcontextprotocol: docs/specification/2026-07-28/basic/versioning.mdx,
// basic/transports/streamable-http.mdx (Mcp-Method / Mcp-Name, HeaderMismatch), server/discover.mdx,
// schema/2026-07-28/schema.ts (error codes, _meta keys), and docs/seps/2663-tasks-extension.mdx with
// github.com/modelcontextprotocol/ext-tasks specification/draft/tasks.md (the tasks extension).
// The SDK (1.32.2) knows none of this: this module is the HTTP layer's part of it.

export const MODERN_VERSION = "2026-07-28";
/** What server/discover and an UnsupportedProtocolVersion error list: the modern revision, then the SDK's. */
export const SUPPORTED_VERSIONS = [MODERN_VERSION, ...SUPPORTED_PROTOCOL_VERSIONS];

export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";
export const META_PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion";
export const META_CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";
export const META_SERVER_INFO = "io.modelcontextprotocol/serverInfo";

export const HEADER_MISMATCH = -32020;
export const MISSING_REQUIRED_CLIENT_CAPABILITY = -32021;
export const UNSUPPORTED_PROTOCOL_VERSION = -32022;

type Message = Record<string, unknown>;
type Params = { _meta?: Record<string, unknown>; name?: unknown; uri?: unknown; taskId?: unknown } & Record<
  string,
  unknown
>;

const paramsOf = (message: Message): Params | undefined =>
  typeof message.params === "object" && message.params !== null ? (message.params as Params) : undefined;

/** The protocol version a message's _meta names (a modern message), or undefined (a legacy one). */
export const metaVersion = (message: Message): unknown => paramsOf(message)?._meta?.[META_PROTOCOL_VERSION];

/** Whether a POST speaks the modern revision: its header says so, or its message's _meta names a version. */
export function isModernPost(headers: Headers, messages: Message[]): boolean {
  return headers.get("mcp-protocol-version") === MODERN_VERSION || messages.some((m) => metaVersion(m) !== undefined);
}

/** Whether the request's own client capabilities (never an earlier request's) include the tasks extension. */
export function declaresTasksExtension(params: unknown): boolean {
  const capabilities = (params as Params | undefined)?._meta?.[META_CLIENT_CAPABILITIES] as
    { extensions?: Record<string, unknown> } | undefined;
  const extension = capabilities?.extensions?.[TASKS_EXTENSION];
  return typeof extension === "object" && extension !== null;
}

export const missingTasksExtension = () => ({
  code: MISSING_REQUIRED_CLIENT_CAPABILITY,
  message: `Missing required client capability: this tool runs only as a task; declare the ${TASKS_EXTENSION} extension in the request's client capabilities.`,
  data: { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
});

/** The body value that the Mcp-Name header mirrors for a method, when it has one. */
function nameSource(method: string, params: Params | undefined): { field: string; value: unknown } | undefined {
  if (method === "tools/call" || method === "prompts/get") return { field: "params.name", value: params?.name };
  if (method === "resources/read") return { field: "params.uri", value: params?.uri };
  // The tasks extension: "the client MUST set the Mcp-Name header to the value of params.taskId".
  if (method === "tasks/get" || method === "tasks/update" || method === "tasks/cancel")
    return { field: "params.taskId", value: params?.taskId };
  return undefined;
}

/** A header value in the spec's Base64 sentinel form (`=?base64?…?=`) decoded; any other value as it is. */
export function decodeHeaderValue(value: string): string | null {
  const match = /^=\?base64\?(.*)\?=$/.exec(value);
  if (!match) return value;
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(match[1])) return null;
  return Buffer.from(match[1], "base64").toString("utf8");
}

export type ProtocolRefusal = { status: number; error: { code: number; message: string; data?: unknown } };

/**
 * Checks one modern request against its HTTP headers, as streamable-http.mdx's "Server Validation" asks:
 * a supported version, MCP-Protocol-Version equal to _meta's version, Mcp-Method equal to `method`,
 * Mcp-Name equal to the name, URI or task id the method carries. Every refusal is a 400.
 */
export function checkModernRequest(headers: Headers, message: Message): ProtocolRefusal | null {
  const version = metaVersion(message);
  const headerVersion = headers.get("mcp-protocol-version");
  const mismatch = (message: string): ProtocolRefusal => ({
    status: 400,
    error: { code: HEADER_MISMATCH, message: `Header mismatch: ${message}` },
  });
  if (version === undefined)
    return mismatch(
      `the MCP-Protocol-Version header says ${headerVersion} but the request's _meta names no ${META_PROTOCOL_VERSION}`,
    );
  // Per-request _meta is the modern revision's; an earlier revision starts with initialize instead.
  if (version !== MODERN_VERSION) {
    return {
      status: 400,
      error: {
        code: UNSUPPORTED_PROTOCOL_VERSION,
        message: "Unsupported protocol version",
        data: { supported: [MODERN_VERSION], requested: version },
      },
    };
  }
  if (headerVersion !== version)
    return mismatch(
      headerVersion === null
        ? "the MCP-Protocol-Version header is missing"
        : `MCP-Protocol-Version header value '${headerVersion}' does not match _meta value '${version}'`,
    );
  if (typeof message.method !== "string") return null; // a response or a malformed message: the SDK answers it
  const method = headers.get("mcp-method");
  if (method === null) return mismatch("the Mcp-Method header is missing");
  if (method !== message.method)
    return mismatch(`Mcp-Method header value '${method}' does not match body value '${message.method}'`);
  const source = nameSource(message.method, paramsOf(message));
  if (source) {
    const raw = headers.get("mcp-name");
    if (raw === null) return mismatch(`the Mcp-Name header is missing (it carries ${source.field})`);
    const name = decodeHeaderValue(raw);
    if (name === null) return mismatch("the Mcp-Name header is not valid Base64 inside its =?base64?…?= sentinel");
    if (name !== source.value)
      return mismatch(`Mcp-Name header value '${name}' does not match ${source.field} '${String(source.value)}'`);
  }
  return null;
}

/** HTTP status of a modern JSON-RPC error answer (streamable-http.mdx: 404 for an unknown method, 400 for the protocol's own errors). */
export function modernErrorStatus(code: number): number | undefined {
  if (code === -32601) return 404;
  if (code === HEADER_MISMATCH || code === MISSING_REQUIRED_CLIENT_CAPABILITY || code === UNSUPPORTED_PROTOCOL_VERSION)
    return 400;
  return undefined;
}

/** Results that carry the caching hints 2026-07-28 requires (CacheableResult: ttlMs and cacheScope). */
const CACHE_HINTS: Record<string, number> = {
  "tools/list": 60_000,
  "resources/templates/list": 60_000,
  // A run changes while it runs: read it again every time.
  "resources/list": 0,
  "resources/read": 0,
};

/**
 * A modern answer as 2026-07-28 has it: every result says its resultType ("complete" unless the handler said
 * "task") and names the server in _meta; list and read results carry their caching hints ("private": each
 * answer is for one token).
 */
export function finishModernAnswer(answer: Message, method: string | undefined, serverInfo: object): Message {
  if (typeof answer.result !== "object" || answer.result === null) return answer;
  const result = answer.result as Message & { _meta?: Record<string, unknown> };
  const ttlMs = method === undefined ? undefined : CACHE_HINTS[method];
  return {
    ...answer,
    result: {
      resultType: "complete",
      ...(ttlMs !== undefined ? { ttlMs, cacheScope: "private" } : {}),
      ...result,
      _meta: { [META_SERVER_INFO]: serverInfo, ...result._meta },
    },
  };
}
