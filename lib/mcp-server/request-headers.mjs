// The HTTP headers MCP 2026-07-28 asks a Streamable HTTP client to mirror from each request's body
// (docs/specification/2026-07-28/basic/transports/streamable-http.mdx, "Standard Request Headers"; the tasks
// extension adds tasks/get, tasks/update and tasks/cancel naming their task in Mcp-Name). The SDK's client
// transport (1.32.2) predates that revision, so this wraps its fetch: a POST carrying one modern request
// (its _meta names a protocol version) gets MCP-Protocol-Version, Mcp-Method and Mcp-Name; anything else
// passes unchanged. Plain JavaScript: `tether mcp` (lib/mcp-server/stdio.mjs) runs with node alone.

const NAME_SOURCE = {
  "tools/call": (params) => params.name,
  "prompts/get": (params) => params.name,
  "resources/read": (params) => params.uri,
  "tasks/get": (params) => params.taskId,
  "tasks/update": (params) => params.taskId,
  "tasks/cancel": (params) => params.taskId,
};

/** A header value as the spec encodes it: plain printable ASCII as it is, anything else (or the sentinel itself) as =?base64?…?=. */
export function headerValue(value) {
  const plain = /^[\x20-\x7e]*$/.test(value) && !/^=\?base64\?.*\?=$/.test(value) && value.trim() === value;
  return plain ? value : `=?base64?${Buffer.from(value, "utf8").toString("base64")}?=`;
}

/** The headers a modern request's body calls for, or null for a legacy message. */
export function requestHeaders(message) {
  const version = message?.params?._meta?.["io.modelcontextprotocol/protocolVersion"];
  if (typeof version !== "string" || typeof message.method !== "string") return null;
  const headers = { "mcp-protocol-version": version, "mcp-method": message.method };
  const name = NAME_SOURCE[message.method]?.(message.params);
  if (typeof name === "string") headers["mcp-name"] = headerValue(name);
  return headers;
}

/** `fetch` that adds requestHeaders(body) to each POST of one JSON-RPC request. */
export function withRequestHeaders(inner = fetch) {
  return async (input, init) => {
    if (init?.method !== "POST" || typeof init.body !== "string") return inner(input, init);
    let message;
    try {
      message = JSON.parse(init.body);
    } catch {
      return inner(input, init);
    }
    const extra = Array.isArray(message) ? null : requestHeaders(message);
    if (!extra) return inner(input, init);
    const headers = new Headers(init.headers);
    for (const [key, value] of Object.entries(extra)) headers.set(key, value);
    return inner(input, { ...init, headers });
  };
}
