import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Protocol } from "@modelcontextprotocol/sdk/shared/protocol.js";
import { z } from "zod";

// The SDK's own Client and StreamableHTTPClientTransport (1.32.2) speaking MCP 2026-07-28, which the SDK
// does not know yet: no initialize (Client.connect would send one, so the base Protocol's connect is used),
// every request names the version and the request's client capabilities in params._meta, and every POST
// carries MCP-Protocol-Version (the transport's own header, set to 2026-07-28) and the Mcp-Method /
// Mcp-Name headers that streamable-http.mdx asks clients to mirror from the body (a fetch wrapper adds
// them). Results are checked with the schemas below (the extension's shapes, from ext-tasks' schema.ts).

export const MODERN = "2026-07-28";
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

const NAMED: Record<string, (params: Record<string, unknown>) => unknown> = {
  "tools/call": (p) => p.name,
  "prompts/get": (p) => p.name,
  "resources/read": (p) => p.uri,
  "tasks/get": (p) => p.taskId,
  "tasks/update": (p) => p.taskId,
  "tasks/cancel": (p) => p.taskId,
};

/** Adds Mcp-Method and Mcp-Name from a POST's JSON-RPC request, as a 2026-07-28 client must. */
export function withRequestHeaders(inner: typeof fetch = fetch): typeof fetch {
  return async (input, init) => {
    if (init?.method === "POST" && typeof init.body === "string") {
      const message = JSON.parse(init.body) as { method?: string; params?: Record<string, unknown> };
      const headers = new Headers(init.headers);
      if (message.method) {
        headers.set("mcp-method", message.method);
        const name = NAMED[message.method]?.(message.params ?? {});
        if (typeof name === "string") headers.set("mcp-name", /^[\x20-\x7e]*$/.test(name) ? name : `=?base64?${Buffer.from(name).toString("base64")}?=`);
      }
      return inner(input, { ...init, headers });
    }
    return inner(input, init);
  };
}

export type ModernClient = {
  client: Client;
  /** A request with this client's _meta (version, client info, and the tasks extension unless `tasks: false`). */
  request: <S extends z.ZodType>(method: string, params: Record<string, unknown>, schema: S, opts?: { tasks?: boolean }) => Promise<z.infer<S>>;
};

export async function connectModern(baseUrl: string, token: string): Promise<ModernClient> {
  const client = new Client({ name: "tether-test-2026", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}/api/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } }, fetch: withRequestHeaders() });
  await Protocol.prototype.connect.call(client, transport);
  transport.setProtocolVersion(MODERN);
  const request: ModernClient["request"] = (method, params, schema, opts = {}) =>
    client.request(
      {
        method,
        params: {
          ...params,
          _meta: {
            "io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientInfo": { name: "tether-test-2026", version: "1.0.0" },
            "io.modelcontextprotocol/clientCapabilities": opts.tasks === false ? {} : { extensions: { [TASKS_EXTENSION]: {} } },
          },
        },
      },
      schema as never,
    ) as never;
  return { client, request };
}

// ---- the 2026-07-28 shapes the tests read (ext-tasks schema/draft/schema.ts; core schema/2026-07-28/schema.ts)

const taskFields = {
  taskId: z.string(),
  status: z.enum(["working", "input_required", "completed", "failed", "cancelled"]),
  statusMessage: z.string().optional(),
  createdAt: z.string(),
  lastUpdatedAt: z.string(),
  ttlMs: z.number().int().nullable(),
  pollIntervalMs: z.number().int().optional(),
};

export const CreateTaskResult = z.looseObject({ resultType: z.literal("task"), ...taskFields });
export const ElicitationInputRequest = z.object({
  method: z.literal("elicitation/create"),
  params: z.looseObject({ mode: z.literal("form"), message: z.string(), requestedSchema: z.looseObject({ type: z.literal("object"), properties: z.record(z.string(), z.any()) }) }),
});
export const GetTaskResult = z.looseObject({
  resultType: z.literal("complete"),
  ...taskFields,
  inputRequests: z.record(z.string(), ElicitationInputRequest).optional(),
  result: z.looseObject({ content: z.array(z.any()), structuredContent: z.any().optional(), isError: z.boolean().optional() }).optional(),
  error: z.looseObject({ code: z.number(), message: z.string() }).optional(),
});
export const AckResult = z.looseObject({ resultType: z.literal("complete") });
export const CallToolResult = z.looseObject({ resultType: z.literal("complete"), content: z.array(z.any()), structuredContent: z.any().optional(), isError: z.boolean().optional() });
export const DiscoverResult = z.looseObject({ resultType: z.literal("complete"), supportedVersions: z.array(z.string()), capabilities: z.looseObject({ extensions: z.record(z.string(), z.any()).optional() }) });
