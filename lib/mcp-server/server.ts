import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { Protocol } from "@modelcontextprotocol/sdk/shared/protocol.js";
import {
  CallToolRequestSchema,
  CancelTaskRequestSchema,
  ErrorCode,
  GetTaskPayloadRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  RELATED_TASK_META_KEY,
  type CallToolRequest,
  type CallToolResult,
  type CreateTaskResult,
  type Task,
} from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { eventsQuery } from "@/lib/api/schemas";
import { hasScope, type ApiScope } from "@/lib/api/scopes";
import { decisionOptions } from "@/lib/runtime/types";
import type { McpContext } from "./context";
import { awaitAnswer, elicitationRequest } from "./elicitation";
import { forbidden, toMcpError, toolError } from "./errors";
import {
  declaresTasksExtension,
  META_SERVER_INFO,
  missingTasksExtension,
  SUPPORTED_VERSIONS,
  TASKS_EXTENSION,
} from "./protocol-2026";
import * as extension from "./task-extension";
import { RunTaskStore, TASK_POLL_MS } from "./tasks";
import { TOOLS, type TetherTool } from "./tools";

// Tether as an MCP server, for one request of one principal (lib/mcp-server/http.ts makes one per HTTP
// request: nothing lives between requests, so any process can answer any request).
//
// The low-level Server, not McpServer: McpServer runs a task-capable tool called without a task by
// polling it to the end (a run can wait days for a person), and answers tasks/result from an in-memory
// message queue that a stateless server does not have. The tools' schemas come from zod all the same
// (lib/mcp-server/tools.ts), and tasks/get and tasks/list are the SDK's, over RunTaskStore.
//
// Two protocol revisions, one per request (http.ts tells which): "legacy" is 2025-11-25 and earlier, with
// that revision's experimental tasks; "modern" is 2026-07-28, whose tasks are the io.modelcontextprotocol/tasks
// extension (task-extension.ts). Tools and resources are the same in both.

export const SERVER_INFO = { name: "tether", title: "Tether", version: "0.1.0" };

/** How long one tasks/result waits for a run before answering "not yet" (the client asks again). */
const RESULT_WAIT_MS = 10 * 60_000;
/** How many times one tasks/result asks the same packet again after its answer was refused. */
const MAX_ASKS = 3;

const INSTRUCTIONS = {
  legacy:
    "Tether runs agents durably and keeps people in charge of what they do. Start a run with start_run (as a task to follow it), " +
    "follow it with get_run or tasks/get, and decide the packets its gates raise with decide_packet (or answer the elicitation tasks/result sends). " +
    "Ask a person before an action of your own with request_approval (a task that completes with their decision). " +
    "You act as the person who owns the API token: you cannot approve a run you started.",
  modern:
    "Tether runs agents durably and keeps people in charge of what they do. Start a run with start_run (it answers with a task when you declare " +
    "the io.modelcontextprotocol/tasks extension), follow it with tasks/get or get_run, and decide the packets its gates raise by answering the task's " +
    "inputRequests with tasks/update (or with decide_packet). Ask a person before an action of your own with request_approval (a task that completes " +
    "with their decision). You act as the person who owns the API token: you cannot approve a run you started.",
};

/** The protocol revision a request speaks: 2025-11-25 and earlier (initialize first), or 2026-07-28 (per-request _meta). */
export type McpEra = "legacy" | "modern";

export function createTetherMcpServer(ctx: McpContext, opts: { signal?: AbortSignal; era?: McpEra } = {}): Server {
  const modern = opts.era === "modern";
  const store = new RunTaskStore(ctx);
  const server = new Server(SERVER_INFO, {
    // Under 2026-07-28 these capabilities are never sent (server/discover says what the server offers);
    // `tasks` there only lets the SDK accept our tasks/get and tasks/cancel handlers.
    capabilities: {
      tools: {},
      resources: {},
      tasks: modern ? {} : { list: {}, cancel: {}, requests: { tools: { call: {} } } },
    },
    instructions: INSTRUCTIONS.legacy,
    // The SDK's task machinery (tasks/get, tasks/list, tasks/result over a TaskStore) is 2025-11-25's.
    ...(modern ? {} : { taskStore: store }),
  });
  const need = (scope: ApiScope) => {
    if (!hasScope(ctx.principal.scopes, scope)) throw forbidden(ctx.principal, scope);
  };
  const findTool = (name: string): TetherTool => {
    const tool = TOOLS.find((t) => t.name === name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Tool ${name} not found`);
    return tool;
  };
  const callNow = async (tool: TetherTool, args: Record<string, unknown> | undefined): Promise<CallToolResult> => {
    // Only a tool whose taskSupport is "required" has no `call`, and both revisions refuse it before this.
    if (!tool.call) throw new McpError(ErrorCode.InternalError, `Tool ${tool.name} runs only as a task`);
    try {
      need(tool.scope);
      const result = await tool.call(ctx, args ?? {});
      const structured = JSON.parse(JSON.stringify(result)) as Record<string, unknown>;
      return { content: [{ type: "text", text: JSON.stringify(structured) }], structuredContent: structured };
    } catch (error) {
      return toolError(error);
    }
  };

  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: TOOLS.map(({ name, title, description, inputSchema, annotations, execution }) => ({
      name,
      title,
      description,
      inputSchema: inputSchema as { type: "object" },
      annotations,
      ...(execution ? { execution } : {}),
    })),
  }));

  if (modern) registerTaskExtension(server, ctx, { findTool, callNow, need });
  else {
    server.setRequestHandler(
      CallToolRequestSchema,
      async (request, extra): Promise<CallToolResult | CreateTaskResult> => {
        const tool = findTool(request.params.name);
        const support = tool.execution?.taskSupport ?? "forbidden";
        if (request.params.task) {
          // Task-augmented: the answer is the task or a JSON-RPC error (there is no tool result to carry one).
          if (support === "forbidden")
            throw new McpError(ErrorCode.InvalidParams, `Tool ${tool.name} cannot be called as a task`);
          try {
            need(tool.scope);
          } catch (error) {
            throw toMcpError(error);
          }
          return { task: await store.createTask(request.params.task, extra.requestId, request) };
        }
        // 2025-11-25: "If taskSupport is "required", … Servers MUST return a -32601 (Method not found) error".
        if (support === "required")
          throw new McpError(
            ErrorCode.MethodNotFound,
            `Tool ${tool.name} runs only as a task: call it with params.task`,
          );
        return callNow(tool, request.params.arguments);
      },
    );
  }

  // ---- resources: a run's state and its trace

  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
    resourceTemplates: [
      {
        uriTemplate: "tether://runs/{id}/state",
        name: "run-state",
        title: "A run's state",
        description: "The run's durable state: facts, plan, approvals, observations, output.",
        mimeType: "application/json",
      },
      {
        uriTemplate: "tether://runs/{id}/trace{?after,limit}",
        name: "run-trace",
        title: "A run's trace",
        description:
          "The run's trace events in order, after a sequence number (default 0), at most limit (default 500).",
        mimeType: "application/json",
      },
    ],
  }));

  server.setRequestHandler(ListResourcesRequestSchema, async () => {
    try {
      need("runs:read");
      const runs = await ctx.runtime.findRuns({ limit: 20 });
      return {
        resources: runs.flatMap((run) => [
          {
            uri: `tether://runs/${run.id}/state`,
            name: `${run.id}/state`,
            title: `${run.agentSlug} ${run.id}: state (${run.status})`,
            mimeType: "application/json",
          },
          {
            uri: `tether://runs/${run.id}/trace`,
            name: `${run.id}/trace`,
            title: `${run.agentSlug} ${run.id}: trace`,
            mimeType: "application/json",
          },
        ]),
      };
    } catch (error) {
      throw toMcpError(error);
    }
  });

  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const { uri } = request.params;
    const match = /^tether:\/\/runs\/([^/?#]+)\/(state|trace)(?:\?([^#]*))?$/.exec(uri);
    if (!match)
      throw new McpError(
        ErrorCode.InvalidParams,
        `Unknown resource ${uri}: use tether://runs/{id}/state or tether://runs/{id}/trace`,
      );
    try {
      need("runs:read");
      const run = await ctx.runtime.getRun(decodeURIComponent(match[1]));
      let body: unknown;
      if (match[2] === "state") body = { runId: run.id, status: run.status, stateSeq: run.stateSeq, state: run.state };
      else {
        const query = eventsQuery.parse(Object.fromEntries(new URLSearchParams(match[3] ?? "")));
        const events = await ctx.runtime.store.listEvents(run.id, { afterSeq: query.after, limit: query.limit });
        body = { runId: run.id, events, lastSeq: events.at(-1)?.seq ?? query.after };
      }
      return { contents: [{ uri, mimeType: "application/json", text: JSON.stringify(body) }] };
    } catch (error) {
      throw toMcpError(error);
    }
  });

  if (!modern) registerLegacyTasks(server, ctx, store, opts.signal);
  return server;
}

/**
 * 2026-07-28: server/discover, tools/call that answers a task when the client declares the tasks
 * extension, and the extension's tasks/get, tasks/update and tasks/cancel. tasks/result and tasks/list
 * are not registered, so they are "Method not found" (-32601), as the extension requires.
 */
function registerTaskExtension(
  server: Server,
  ctx: McpContext,
  h: {
    findTool: (name: string) => TetherTool;
    callNow: (tool: TetherTool, args?: Record<string, unknown>) => Promise<CallToolResult>;
    need: (scope: ApiScope) => void;
  },
) {
  const tasks = new extension.TaskExtension(ctx);
  const guarded = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      throw toMcpError(error);
    }
  };

  server.setRequestHandler(
    z.object({ method: z.literal("server/discover"), params: z.looseObject({}).optional() }),
    () => ({
      supportedVersions: SUPPORTED_VERSIONS,
      capabilities: { tools: {}, resources: {}, extensions: { [TASKS_EXTENSION]: {} } },
      instructions: INSTRUCTIONS.modern,
      _meta: { [META_SERVER_INFO]: SERVER_INFO },
      // The same for every token; "private" all the same, since asking needs one.
      ttlMs: 3_600_000,
      cacheScope: "private",
    }),
  );

  // Past the SDK's Server.setRequestHandler, which checks a tools/call answer as a 2025-11-25
  // CallToolResult and would give a task handle an empty `content`.
  Protocol.prototype.setRequestHandler.call(server, CallToolRequestSchema, async (request: CallToolRequest) => {
    const tool = h.findTool(request.params.name);
    const support = tool.execution?.taskSupport ?? "forbidden";
    const asTask = support !== "forbidden" && declaresTasksExtension(request.params);
    if (support === "required" && !asTask) {
      const { code, message, data } = missingTasksExtension();
      throw new McpError(code, message, data);
    }
    if (!asTask) return h.callNow(tool, request.params.arguments);
    return guarded(() => tasks.create(tool.name, request.params.arguments));
  });

  server.setRequestHandler(extension.GetTaskRequestSchema, (request) =>
    guarded(() => tasks.get(extension.parseGetParams(request.params).taskId)),
  );
  server.setRequestHandler(extension.UpdateTaskRequestSchema, (request) =>
    guarded(async () => {
      const { taskId, inputResponses } = extension.parseUpdateParams(request.params);
      return tasks.update(taskId, inputResponses);
    }),
  );
  server.setRequestHandler(extension.CancelTaskRequestSchema, (request) =>
    guarded(() => tasks.cancel(extension.parseGetParams(request.params).taskId)),
  );
}

/** 2025-11-25: tasks/get and tasks/list are the SDK's handlers over RunTaskStore; tasks/cancel and tasks/result are ours. */
function registerLegacyTasks(server: Server, ctx: McpContext, store: RunTaskStore, signalOf?: AbortSignal) {
  server.setRequestHandler(CancelTaskRequestSchema, async (request) => {
    try {
      return { ...(await store.cancel(request.params.taskId)) };
    } catch (error) {
      throw toMcpError(error);
    }
  });

  /**
   * Waits for the run to finish and answers with its result. While it waits, status changes go out as
   * notifications/tasks/status and each pending packet as an elicitation (when the token may decide),
   * on this response's stream.
   */
  server.setRequestHandler(GetTaskPayloadRequestSchema, async (request, extra) => {
    const { taskId } = request.params;
    const signals = [extra.signal, signalOf].filter((s): s is AbortSignal => s !== undefined);
    const signal = AbortSignal.any(signals);
    const deadline = Date.now() + RESULT_WAIT_MS;
    const asked = new Map<string, { times: number; open: boolean; refusal?: string }>();
    const forget: Array<() => void> = [];
    let wake = () => {};
    let lastStatus: Task["status"] | undefined;
    try {
      for (;;) {
        const run = await store.findRun(taskId);
        if (!run) throw new McpError(ErrorCode.InvalidParams, `Task not found: ${taskId}`);
        const task = await store.taskOf(run);
        const pending = await store.pendingPackets(run);
        if (lastStatus !== undefined && task.status !== lastStatus) {
          await extra.sendNotification({ method: "notifications/tasks/status", params: task }).catch(() => {});
        }
        lastStatus = task.status;
        const result = await store.resultOf(run);
        if (result) return { ...result, _meta: { [RELATED_TASK_META_KEY]: { taskId } } };
        if (hasScope(ctx.principal.scopes, "packets:decide")) {
          for (const packet of pending) {
            const seen = asked.get(packet.id);
            // Once per packet, and again (with the reason) only after a refused answer reached this process.
            if (seen && (seen.open || seen.refusal === undefined || seen.times >= MAX_ASKS)) continue;
            const entry = { times: (seen?.times ?? 0) + 1, open: true, refusal: undefined as string | undefined };
            asked.set(packet.id, entry);
            const { id, request: elicit } = elicitationRequest(packet, decisionOptions(packet), {
              taskId,
              refusal: seen?.refusal,
            });
            forget.push(
              awaitAnswer(id, (outcome) => {
                entry.open = false;
                if (outcome.kind === "refused") entry.refusal = outcome.message;
                wake();
              }),
            );
            await server.transport?.send(elicit, { relatedRequestId: extra.requestId });
          }
        }
        if (signal.aborted) throw new McpError(ErrorCode.ConnectionClosed, "tasks/result was cancelled");
        if (Date.now() >= deadline)
          throw new McpError(
            ErrorCode.RequestTimeout,
            `Task ${taskId} is still ${task.status}: call tasks/result again`,
          );
        await new Promise<void>((resolve) => {
          const done = () => {
            clearTimeout(timer);
            signal.removeEventListener("abort", done);
            resolve();
          };
          const timer = setTimeout(done, TASK_POLL_MS);
          signal.addEventListener("abort", done, { once: true });
          wake = done;
        });
      }
    } catch (error) {
      throw toMcpError(error);
    } finally {
      for (const f of forget) f();
    }
  });
}
