import type { Tool, ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { packetStatusesOf, presentAgents, presentPacket, presentRun } from "@/lib/api/present";
import { cancelBody, idParams, packetsQuery, startRunBody } from "@/lib/api/schemas";
import { gateRequestSchema } from "@/lib/commands/request-gate";
import type { ApiScope } from "@/lib/api/scopes";
import type { RunRecord } from "@/lib/runtime/types";
import { parseArgs, startRunFor, type McpContext } from "./context";
import { decisionInputFromFlat, decisionToolProperties } from "./decision-form";
import { startGateTask } from "./gate-tasks";

// The MCP tools: each is one HTTP API route, with its scope, its request schema (lib/api/schemas.ts, or
// decidePacketSchema) and the same domain call. Only the envelope differs: arguments instead of a path,
// a query and a body; a tool result instead of a JSON response.

type JsonSchema = Record<string, unknown>;

export type TetherTool = {
  name: string;
  title: string;
  description: string;
  /** The scope the HTTP route asks for. */
  scope: ApiScope;
  inputSchema: JsonSchema;
  annotations?: ToolAnnotations;
  /** start_run may be called as a task, request_approval only as one: the task is the run it starts. */
  execution?: Tool["execution"];
  /** The tool's answer when called without a task (a tool whose taskSupport is "required" has none). */
  call?: (ctx: McpContext, args: unknown) => Promise<Record<string, unknown>>;
  /** Starts the run that a call as a task stands for (the task id is the run id). */
  startTask?: (ctx: McpContext, args: unknown) => Promise<RunRecord>;
};

/** A zod schema's JSON Schema as a tool input (MCP wants `type: object`; the dialect is MCP's default). */
function inputJsonSchema(schema: z.ZodType): JsonSchema {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as JsonSchema;
  return json;
}

const withDescriptions = (json: JsonSchema, descriptions: Record<string, string>): JsonSchema => {
  const properties = { ...(json.properties as Record<string, JsonSchema>) };
  for (const [key, description] of Object.entries(descriptions))
    if (properties[key]) properties[key] = { ...properties[key], description };
  return { ...json, properties };
};

const decideArgs = z.looseObject({ id: idParams.shape.id, decision: z.string().min(1) });
const cancelArgs = idParams.extend(cancelBody.shape);
const RECENT_EVENTS = 20;

export const TOOLS: TetherTool[] = [
  {
    name: "list_agents",
    title: "List agents",
    description: "The agents this Tether runs, each with its input JSON Schema and an example input (GET /api/agents).",
    scope: "runs:read",
    inputSchema: { type: "object", properties: {} },
    annotations: { readOnlyHint: true },
    async call() {
      return { agents: presentAgents() };
    },
  },
  {
    name: "start_run",
    title: "Start a run",
    description:
      "Start a run of an agent (POST /api/runs). The same idempotencyKey returns the same run. Called as a task, the task is the run: " +
      "tasks/get follows it (input_required while a person must decide a packet), tasks/result waits for its output and offers its packets as elicitations.",
    scope: "runs:write",
    inputSchema: withDescriptions(inputJsonSchema(startRunBody), {
      agent: "The agent's slug (list_agents).",
      input: "The agent's input, matching its input schema.",
      idempotencyKey: "Retrying with the same key returns the same run instead of starting another.",
    }),
    execution: { taskSupport: "optional" },
    async call(ctx, args) {
      const { run, created } = await startRunFor(ctx, args);
      return { id: run.id, status: run.status, created };
    },
    startTask: async (ctx, args) => (await startRunFor(ctx, args)).run,
  },
  {
    name: "get_run",
    title: "Get a run",
    description:
      "A run's status, its recovery view (what definitely happened, what may have, what is safe next), its pending packets and its latest trace events " +
      "(GET /api/runs/:id). Its full state and trace are the resources tether://runs/{id}/state and tether://runs/{id}/trace.",
    scope: "runs:read",
    inputSchema: withDescriptions(inputJsonSchema(idParams), { id: "The run's id." }),
    annotations: { readOnlyHint: true },
    async call(ctx, args) {
      const { id } = parseArgs(idParams, args);
      const run = await ctx.runtime.getRun(id);
      const [recovery, pending, recentEvents] = await Promise.all([
        ctx.runtime.recoveryView(run.id),
        ctx.runtime.store.findPackets({ runId: run.id, status: ["PENDING"] }),
        ctx.runtime.store.listEvents(run.id, {
          afterSeq: Math.max(0, run.eventSeq - RECENT_EVENTS),
          limit: RECENT_EVENTS,
        }),
      ]);
      return {
        run: presentRun(run),
        output: run.state.output ?? null,
        recovery,
        pendingPackets: pending.map(presentPacket),
        recentEvents,
      };
    },
  },
  {
    name: "list_packets",
    title: "List decision packets",
    description:
      "Decision packets (GET /api/packets): pending by default; filter by run or queue. Each shows the action, its impact, the evidence and its options.",
    scope: "runs:read",
    inputSchema: inputJsonSchema(packetsQuery),
    annotations: { readOnlyHint: true },
    async call(ctx, args) {
      const query = parseArgs(packetsQuery, args);
      const packets = await ctx.runtime.store.findPackets({
        status: packetStatusesOf(query.status),
        runId: query.runId,
        queue: query.queue,
        limit: query.limit,
      });
      return { packets: packets.map(presentPacket) };
    },
  },
  {
    name: "decide_packet",
    title: "Decide a packet",
    description:
      "Decide a pending packet as the token's owner (POST /api/packets/:id/decision). Whoever started the run or requested the action cannot approve it; " +
      "a four-eyes packet needs several different approvers.",
    scope: "packets:decide",
    inputSchema: {
      type: "object",
      properties: {
        id: {
          ...(inputJsonSchema(idParams).properties as Record<string, JsonSchema>).id,
          description: "The packet's id.",
        },
        ...decisionToolProperties(),
      },
      required: ["id", "decision"],
    },
    async call(ctx, args) {
      const { id, ...answer } = parseArgs(decideArgs, args);
      return {
        packet: presentPacket(
          await ctx.runtime.decidePacket({
            packetId: id,
            reviewer: ctx.principal.principal,
            via: `mcp:${ctx.principal.name}`,
            input: decisionInputFromFlat(answer),
          }),
        ),
      };
    },
  },
  {
    name: "cancel_run",
    title: "Cancel a run",
    description:
      "Cancel a run that has not finished (POST /api/runs/:id/cancel). A run started as a task can also be cancelled with tasks/cancel.",
    scope: "runs:write",
    inputSchema: withDescriptions(inputJsonSchema(cancelArgs), { id: "The run's id." }),
    annotations: { destructiveHint: true },
    async call(ctx, args) {
      const { id, reason } = parseArgs(cancelArgs, args);
      return { run: presentRun(await ctx.runtime.cancelRun({ runId: id, by: ctx.principal.principal, reason })) };
    },
  },
  {
    name: "request_approval",
    title: "Request approval",
    description:
      "Ask a person whether an action may run (an open gate, as POST /api/gates). Runs only as a task: it is working while the request waits in " +
      "the inbox (you cannot approve your own request), then completes with the decision — status approved/edited/rejected/redirected/expired, " +
      "approvedArgs to run, reason, approvers. Afterwards report what you did with POST /api/gates/:id/outcome. The same idempotencyKey is the same request.",
    scope: "gates:request",
    inputSchema: withDescriptions(inputJsonSchema(gateRequestSchema.omit({ callbackUrl: true })), {
      action:
        "The action to approve: the tool's name, its arguments, and optionally the JSON Schema of the arguments (for the reviewer's edit form).",
      idempotencyKey: "Retrying with the same key returns the same request instead of asking again.",
      expiresIn: 'Seconds, or "90s", "30m", "24h", "7d": after that, onExpiry decides.',
      onExpiry: '"reject" (default), "escalate:<queue>", or "approve" (only when said explicitly).',
    }),
    annotations: { openWorldHint: true },
    execution: { taskSupport: "required" },
    startTask: startGateTask,
  },
];
