import { z } from "zod";
import { CAPABILITIES, EFFECT_SEMANTICS } from "@/lib/runtime/types";
import { literalEgressRefusal } from "./egress";
import { argsSchemaFromJsonSchema, isPlainObject, schemaProperties } from "./json-schema";
import { stdioServerRefusals } from "./mcp-commands";
import { CALL_VARIABLES, ENV_PREFIX, forbiddenEnvRefs, placeholderBeforePath, placeholders } from "./template";

// What an admin sends to register a tool, and the rules that make its effect semantics honest
// (docs/design.md): an idempotent HTTP tool must say where the key goes, a reconcilable one how to
// find a previous attempt, and a pure read can only be granted as a read.

export const TOOL_KINDS = ["http", "mcp"] as const;
export type ToolKind = (typeof TOOL_KINDS)[number];
export const HTTP_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;

const httpUrl = (what: string) =>
  z
    .string({ error: `Give the ${what}.` })
    .trim()
    .url(`The ${what} must be an absolute URL, e.g. https://crm.example.com/customers/{{customerId}}.`)
    .refine((u) => /^https?:\/\//i.test(u), `The ${what} must start with http:// or https://.`)
    .refine(
      (u) => !placeholderBeforePath(u),
      `The ${what}'s scheme, host and port are fixed: placeholders ({{name}}) can only be in its path and query.`,
    );

const headerName = z
  .string()
  .trim()
  .regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/, "Give a valid HTTP header name, e.g. Idempotency-Key.");
const secretValues = z.record(z.string(), z.string().max(4000)).superRefine((values, ctx) => {
  for (const [key, value] of Object.entries(values)) {
    for (const ref of forbiddenEnvRefs(value))
      ctx.addIssue({
        code: "custom",
        path: [key],
        message: `Only ${ENV_PREFIX}* variables can be referenced ({{${ref}}} is not allowed).`,
      });
  }
});
const timeoutMs = z
  .number()
  .int("Give the timeout in whole milliseconds.")
  .min(100, "The timeout must be at least 100 ms.")
  .max(120_000, "The timeout can be at most 120 s.");

export const httpToolConfigSchema = z.strictObject({
  url: httpUrl("URL"),
  method: z.enum(HTTP_METHODS, { error: `Use one of ${HTTP_METHODS.join(", ")}.` }).default("POST"),
  /** idempotent tools: the request header that carries the operation's idempotency key. */
  idempotencyHeader: headerName.optional(),
  /** reconcilable tools: a GET that finds a previous attempt (404 or empty → it never happened). */
  lookupUrl: httpUrl("lookup URL").optional(),
  /** Static headers, e.g. { "authorization": "Bearer {{env.TETHER_TOOL_CRM_TOKEN}}" }. */
  headers: secretValues.optional(),
  timeoutMs: timeoutMs.optional(),
});
export type HttpToolConfig = z.infer<typeof httpToolConfigSchema>;

const stdioServer = {
  transport: z.literal("stdio"),
  command: z
    .string({ error: "Give the command that starts the MCP server." })
    .trim()
    .min(1, "Give the command that starts the MCP server."),
  args: z.array(z.string()).default([]),
  env: secretValues.optional(),
  cwd: z.string().trim().min(1).optional(),
};
const httpServer = {
  transport: z.literal("http"),
  url: httpUrl("MCP server URL"),
  headers: secretValues.optional(),
};

/** How to reach an MCP server: a command speaking stdio, or a streamable HTTP endpoint. */
export const mcpServerSchema = z.discriminatedUnion(
  "transport",
  [z.strictObject(stdioServer), z.strictObject(httpServer)],
  {
    error: 'Give the transport: "stdio" (command, args) or "http" (url).',
  },
);
export type McpServerConfig = z.infer<typeof mcpServerSchema>;

const mcpToolFields = {
  /** The tool's name on the MCP server. */
  tool: z
    .string({ error: "Give the name of the tool on the MCP server." })
    .trim()
    .min(1, "Give the name of the tool on the MCP server."),
  /** reconcilable tools: another tool of the same server, called with { operationId }; empty/null → never happened. */
  lookupTool: z.string().trim().min(1).optional(),
  timeoutMs: timeoutMs.optional(),
};
export const mcpToolConfigSchema = z.discriminatedUnion(
  "transport",
  [z.strictObject({ ...stdioServer, ...mcpToolFields }), z.strictObject({ ...httpServer, ...mcpToolFields })],
  { error: 'Give the transport: "stdio" (command, args) or "http" (url).' },
);
export type McpToolConfig = z.infer<typeof mcpToolConfigSchema>;

/** The JSON Schema of the arguments: an object, or its JSON text. */
const inputSchemaField = z
  .union([z.string(), z.record(z.string(), z.unknown())], { error: "Give the input JSON Schema as an object." })
  .default({ type: "object", properties: {} })
  .transform((value, ctx) => {
    if (typeof value !== "string") return value;
    try {
      const parsed: unknown = JSON.parse(value);
      if (isPlainObject(parsed)) return parsed;
    } catch {
      // reported below
    }
    ctx.addIssue({ code: "custom", message: "The input schema is not a JSON object." });
    return z.NEVER;
  });

const toolName = z
  .string({ error: "Give the tool a name." })
  .trim()
  .max(100, "Keep the name under 100 characters.")
  .regex(
    /^[a-z]+(\.[A-Za-z0-9_-]+)+$/,
    "Use a namespaced name of letters, digits, _ and -: http.<name> or mcp.<server>.<tool>.",
  );

const common = {
  name: toolName,
  description: z
    .string({ error: "Describe what the tool does." })
    .trim()
    .min(1, "Describe what the tool does (the agent reads it).")
    .max(2000),
  capability: z.enum(CAPABILITIES, { error: `Use one of ${CAPABILITIES.join(", ")}.` }),
  semantics: z.enum(EFFECT_SEMANTICS, { error: `Use one of ${EFFECT_SEMANTICS.join(", ")}.` }),
  inputSchema: inputSchemaField,
  impactTemplate: z.string().trim().min(1).max(500).optional(),
};

export const registerToolSchema = z
  .discriminatedUnion(
    "kind",
    [
      z.strictObject({ kind: z.literal("http"), ...common, config: httpToolConfigSchema }),
      z.strictObject({ kind: z.literal("mcp"), ...common, config: mcpToolConfigSchema }),
    ],
    { error: 'Give the kind of tool: "http" or "mcp".' },
  )
  .superRefine((input, ctx) => {
    const issue = (path: PropertyKey[], message: string) => ctx.addIssue({ code: "custom", path, message });

    if (!input.name.startsWith(`${input.kind}.`))
      issue(["name"], `A ${input.kind} tool's name starts with "${input.kind}.".`);
    if (input.kind === "mcp" && input.name.split(".").length !== 3)
      issue(["name"], "Name an MCP tool mcp.<server>.<tool>.");

    const args = argsSchemaFromJsonSchema(input.inputSchema);
    if (!args.ok) issue(["inputSchema"], args.reason);

    if (input.impactTemplate) {
      const properties = schemaProperties(input.inputSchema);
      for (const name of placeholders(input.impactTemplate)) {
        if (!properties.has(name.split(".")[0]))
          issue(["impactTemplate"], `{{${name}}} is not a property of the input schema.`);
      }
    }

    if (input.semantics === "pure-read" && input.capability !== "read")
      issue(["capability"], "A pure-read tool changes nothing: its capability is read.");

    // The egress policy and the stdio allow-list (checked again at every call).
    serverPolicyIssues(input.config, (path, message) => issue(["config", ...path], message));

    if (input.kind === "http") {
      const { config } = input;
      if (input.semantics === "idempotent" && !config.idempotencyHeader)
        issue(
          ["config", "idempotencyHeader"],
          "An idempotent tool needs the header that carries the idempotency key (e.g. Idempotency-Key).",
        );
      if (input.semantics === "reconcilable" && !config.lookupUrl)
        issue(
          ["config", "lookupUrl"],
          "A reconcilable tool needs a lookup URL that finds a previous attempt, e.g. …/sent?operationId={{operationId}}.",
        );
      // Path placeholders must always have a value: required properties of the input schema.
      const required = new Set(
        isPlainObject(input.inputSchema) && Array.isArray(input.inputSchema.required)
          ? input.inputSchema.required.map(String)
          : [],
      );
      for (const name of placeholders(config.url)) {
        if (!required.has(name))
          issue(["config", "url"], `{{${name}}} must be a required property of the input schema.`);
      }
      if (config.lookupUrl) {
        const known = new Set([...schemaProperties(input.inputSchema), ...CALL_VARIABLES]);
        for (const name of placeholders(config.lookupUrl)) {
          if (!known.has(name))
            issue(
              ["config", "lookupUrl"],
              `{{${name}}} is neither an input property nor one of ${CALL_VARIABLES.join(", ")}.`,
            );
        }
      }
    } else if (input.semantics === "reconcilable" && !input.config.lookupTool) {
      issue(
        ["config", "lookupTool"],
        "A reconcilable MCP tool needs a lookup tool on the same server that finds a previous attempt by operationId.",
      );
    }
  });
export type RegisterToolInput = z.input<typeof registerToolSchema>;
export type RegisterToolData = z.output<typeof registerToolSchema>;

/** Discovery: the server to list tools from (allowed by the egress policy and TETHER_MCP_COMMANDS). */
export const discoverMcpToolsSchema = mcpServerSchema.superRefine((server, ctx) => {
  serverPolicyIssues(server, (path, message) => ctx.addIssue({ code: "custom", path, message }));
});

type PolicyTarget =
  Extract<McpServerConfig, { transport: "stdio" }> | { transport?: "http"; url: string; lookupUrl?: string };

/**
 * The server's policy, as far as it can be told before a call (names are resolved at every call):
 * a URL whose host is a refused IP literal or localhost, a stdio command outside TETHER_MCP_COMMANDS.
 */
function serverPolicyIssues(target: PolicyTarget, issue: (path: string[], message: string) => void) {
  if (target.transport === "stdio") {
    for (const refusal of stdioServerRefusals(target)) issue(refusal.path, refusal.message);
    return;
  }
  for (const field of ["url", "lookupUrl"] as const) {
    const refusal = target[field] ? literalEgressRefusal(target[field]) : null;
    if (refusal) issue([field], refusal);
  }
}
