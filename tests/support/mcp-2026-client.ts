import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Protocol } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { z } from "zod";
import { withRequestHeaders } from "../../lib/mcp-server/request-headers.mjs";

// The SDK's own Client and StreamableHTTPClientTransport (1.32.2) speaking MCP 2026-07-28, which the SDK
// does not know yet: no initialize (Client.connect would send one, so the base Protocol's connect is used),
// every request names the version and the request's client capabilities in params._meta, and every POST
// carries MCP-Protocol-Version, Mcp-Method and Mcp-Name mirrored from the body, as streamable-http.mdx
// asks of clients (lib/mcp-server/request-headers.mjs wraps the transport's fetch, as `tether mcp` does). Results are checked with the schemas below (the extension's shapes, from ext-tasks' schema.ts).

export const MODERN = "2026-07-28";
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

export type ModernClient = {
  client: Client;
  /** A request with this client's _meta (version, client info, and the tasks extension unless `tasks: false`). */
  request: <S extends z.ZodType>(
    method: string,
    params: Record<string, unknown>,
    schema: S,
    opts?: { tasks?: boolean },
  ) => Promise<z.infer<S>>;
};

export const connectModern = (baseUrl: string, token: string): Promise<ModernClient> =>
  modernClient(
    new StreamableHTTPClientTransport(new URL(`${baseUrl}/api/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
      fetch: withRequestHeaders(),
    }),
  );

/** A client speaking 2026-07-28 over `transport` (Streamable HTTP, or stdio to `tether mcp`). */
export async function modernClient(transport: Transport): Promise<ModernClient> {
  const client = new Client({ name: "tether-test-2026", version: "1.0.0" });
  await Protocol.prototype.connect.call(client, transport);
  const request: ModernClient["request"] = (method, params, schema, opts = {}) =>
    client.request(
      {
        method,
        params: {
          ...params,
          _meta: {
            "io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientInfo": { name: "tether-test-2026", version: "1.0.0" },
            "io.modelcontextprotocol/clientCapabilities":
              opts.tasks === false ? {} : { extensions: { [TASKS_EXTENSION]: {} } },
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
  params: z.looseObject({
    mode: z.literal("form"),
    message: z.string(),
    requestedSchema: z.looseObject({ type: z.literal("object"), properties: z.record(z.string(), z.any()) }),
  }),
});
export const GetTaskResult = z.looseObject({
  resultType: z.literal("complete"),
  ...taskFields,
  inputRequests: z.record(z.string(), ElicitationInputRequest).optional(),
  result: z
    .looseObject({ content: z.array(z.any()), structuredContent: z.any().optional(), isError: z.boolean().optional() })
    .optional(),
  error: z.looseObject({ code: z.number(), message: z.string() }).optional(),
});
export const AckResult = z.looseObject({ resultType: z.literal("complete") });
export const CallToolResult = z.looseObject({
  resultType: z.literal("complete"),
  content: z.array(z.any()),
  structuredContent: z.any().optional(),
  isError: z.boolean().optional(),
});
export const DiscoverResult = z.looseObject({
  resultType: z.literal("complete"),
  supportedVersions: z.array(z.string()),
  capabilities: z.looseObject({ extensions: z.record(z.string(), z.any()).optional() }),
});
