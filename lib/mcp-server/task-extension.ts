import {
  ErrorCode,
  McpError,
  type CallToolResult,
  type ElicitRequestFormParams,
} from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { parse } from "@/lib/api/route";
import { hasScope } from "@/lib/api/scopes";
import { isAppError } from "@/lib/runtime/errors";
import { decisionOptions, type DecisionPacket, type RunRecord } from "@/lib/runtime/types";
import type { McpContext } from "./context";
import { decideFromAnswer, decisionFormParams } from "./elicitation";
import { forbidden, toMcpError } from "./errors";
import { isTerminalRun, RunTaskStore, TASK_POLL_MS } from "./tasks";

// The tasks extension (io.modelcontextprotocol/tasks, SEP-2663) that MCP 2026-07-28 moved tasks into, over
// the same runs as the 2025-11-25 tasks (lib/mcp-server/tasks.ts): the task id is the run id. What differs:
// tasks/get inlines the outcome (`result`) or the questions (`inputRequests`), a client answers with
// tasks/update (`inputResponses`) instead of answering elicitations on tasks/result's stream, tasks/cancel
// and tasks/update are acknowledgements, and there is no tasks/result or tasks/list.
//
// A pending decision packet is an input request: an elicitation/create whose form is the packet's decision
// form (decision-form.ts). Its key is `<packetId>/<approvals so far>`, so it is unique over the task's life
// as the extension asks: once an answer is accepted the key is gone (the packet is decided, or a four-eyes
// packet asks for its next approver under a new key), and answering the same key again is ignored — one
// answer never decides twice. The answer is a decision by the token's owner through decidePacket, so role,
// queue deciders, separation of duties and four eyes hold as for any decision.

type InputRequest = { method: "elicitation/create"; params: ElicitRequestFormParams };

export type DetailedTask = {
  taskId: string;
  status: "working" | "input_required" | "completed" | "failed" | "cancelled";
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  ttlMs: number | null;
  pollIntervalMs?: number;
  inputRequests?: Record<string, InputRequest>;
  result?: CallToolResult;
  error?: { code: number; message: string; data?: unknown };
};

// The extension's requests (the SDK 1.32 has no schemas for them). The handlers' schemas take any params,
// so that bad params are answered by `taskParams` (-32602 naming the field), not by the SDK (-32603).
const anyParams = z.looseObject({}).optional();
export const GetTaskRequestSchema = z.object({ method: z.literal("tasks/get"), params: anyParams });
export const UpdateTaskRequestSchema = z.object({ method: z.literal("tasks/update"), params: anyParams });
export const CancelTaskRequestSchema = z.object({ method: z.literal("tasks/cancel"), params: anyParams });

const taskIdParams = z.looseObject({ taskId: z.string().min(1) });
const updateParams = taskIdParams.extend({ inputResponses: z.record(z.string(), z.unknown()) });

/** A request's params through its schema: -32602 whose message names the fields, data the API's error body. */
export function taskParams<S extends z.ZodType>(schema: S, params: unknown): z.infer<S> {
  try {
    return parse(schema, params ?? {}, "params");
  } catch (error) {
    const refusal = toMcpError(error);
    const fields =
      isAppError(error) && error.fieldErrors
        ? Object.entries(error.fieldErrors)
            .map(([k, v]) => `${k}: ${v.join(", ")}`)
            .join("; ")
        : refusal.message;
    throw new McpError(ErrorCode.InvalidParams, `Invalid params: ${fields}`, refusal.data);
  }
}
export const parseGetParams = (params: unknown) => taskParams(taskIdParams, params);
export const parseUpdateParams = (params: unknown) => taskParams(updateParams, params);

export const inputRequestKey = (packet: DecisionPacket) => `${packet.id}/${packet.approvers.length}`;

export class TaskExtension {
  private readonly store: RunTaskStore;

  constructor(private readonly ctx: McpContext) {
    this.store = new RunTaskStore(ctx);
  }

  /** A task-augmented tools/call: the tool's run as the CreateTaskResult (`resultType: "task"`) the extension defines. */
  async create(toolName: string, args: unknown) {
    const run = await this.store.startTask(toolName, args);
    const { inputRequests: _questions, result: _result, error: _error, ...task } = await this.detailed(run);
    return { resultType: "task" as const, ...task };
  }

  private async requireRun(taskId: string): Promise<RunRecord> {
    const run = await this.store.findRun(taskId);
    if (!run) throw new McpError(ErrorCode.InvalidParams, `Task not found: ${taskId}`);
    return run;
  }

  /** tasks/get: the task with what its status calls for inlined. */
  async get(taskId: string): Promise<DetailedTask & { resultType: "complete" }> {
    return { resultType: "complete", ...(await this.detailed(await this.requireRun(taskId))) };
  }

  private async detailed(run: RunRecord): Promise<DetailedTask> {
    const view = await this.store.view(run, "modern");
    const task = {
      taskId: run.id,
      status: view.status,
      statusMessage: view.statusMessage,
      createdAt: run.createdAt.toISOString(),
      lastUpdatedAt: run.updatedAt.toISOString(),
      // A run is kept until retention compacts it, and compacting keeps its outcome: no expiry to announce.
      ttlMs: null,
      pollIntervalMs: TASK_POLL_MS,
    };
    if (view.status === "completed") return { ...task, result: view.result };
    if (view.status === "input_required") {
      // Empty when the run waits for a person to resume it in the console: nothing the client can answer.
      const inputRequests = Object.fromEntries(
        view.pending.map((packet) => [
          inputRequestKey(packet),
          { method: "elicitation/create" as const, params: decisionFormParams(packet, decisionOptions(packet)) },
        ]),
      );
      return { ...task, inputRequests };
    }
    return task;
  }

  /**
   * tasks/update: each answer to an outstanding input request decides its packet as the token's owner.
   * Keys not outstanding (never issued, already answered, superseded) are ignored, as the extension says.
   * A decline leaves the packet to other deciders. An answer decidePacket refuses (the run's starter
   * approving, a reason missing…) is a JSON-RPC error naming why; its request stays outstanding.
   */
  async update(taskId: string, inputResponses: Record<string, unknown>): Promise<{ resultType: "complete" }> {
    const run = await this.requireRun(taskId);
    const outstanding = new Map(
      (await this.store.pendingPackets(run)).map((packet) => [inputRequestKey(packet), packet]),
    );
    const answered = Object.entries(inputResponses).filter(([key]) => outstanding.has(key));
    if (answered.length > 0 && !hasScope(this.ctx.principal.scopes, "packets:decide"))
      throw toMcpError(forbidden(this.ctx.principal, "packets:decide"));
    for (const [key, response] of answered) {
      const packet = outstanding.get(key)!;
      const outcome = await decideFromAnswer(this.ctx, packet.id, { result: response });
      if (outcome.kind !== "refused") continue;
      // The same answer sent twice at once: the other one decided it, so this one is a repeat.
      const now = await this.ctx.runtime.store.getPacket(packet.id, packet.workspaceId);
      if (!now || now.status !== "PENDING" || inputRequestKey(now) !== key) continue;
      // Bad input is -32602; any other refusal by the rules (separation of duties, a second approval by the
      // same person, a stale or expired packet) is -32600, with the API's error body as data.
      const refusal = toMcpError(outcome.error ?? new McpError(ErrorCode.InvalidParams, outcome.message));
      const code =
        isAppError(outcome.error) && outcome.error.code !== "INVALID_INPUT" ? ErrorCode.InvalidRequest : refusal.code;
      throw new McpError(code, `The answer to input request ${key} was refused: ${outcome.message}`, refusal.data);
    }
    return { resultType: "complete" };
  }

  /**
   * tasks/cancel, cooperative: asks the run to stop and acknowledges. A task that already finished stays
   * as it finished (the extension lets a cancelled task end otherwise); an unknown task is an error.
   */
  async cancel(taskId: string): Promise<{ resultType: "complete" }> {
    const run = await this.requireRun(taskId);
    if (!isTerminalRun(run)) {
      await this.store.cancel(run.id).catch((error: unknown) => {
        // Lost the race with the run finishing: nothing left to cancel.
        if (error instanceof McpError && /terminal status/.test(error.message)) return;
        throw error;
      });
    }
    return { resultType: "complete" };
  }
}
