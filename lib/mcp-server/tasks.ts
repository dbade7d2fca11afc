import type { CreateTaskOptions, TaskStore } from "@modelcontextprotocol/sdk/experimental/tasks";
import {
  ErrorCode,
  McpError,
  type CallToolResult,
  type Request,
  type RequestId,
  type Result,
  type Task,
} from "@modelcontextprotocol/sdk/types.js";
import { presentRun } from "@/lib/api/present";
import { hasScope, type ApiScope } from "@/lib/api/scopes";
import { runStatusSentence } from "@/lib/run-status-sentence";
import { isAppError } from "@/lib/runtime/errors";
import { TERMINAL_STATUSES, type DecisionPacket, type RunRecord, type RunStatus } from "@/lib/runtime/types";
import type { McpContext } from "./context";
import { forbidden, toMcpError } from "./errors";
import { gateTaskState, isGateRun } from "./gate-tasks";
import { TOOLS } from "./tools";

// MCP tasks are Tether runs: the task id is the run id, its status is the run's, its result the run's
// output. Nothing is kept in memory, so any request on any process answers for any task (the SDK's
// InMemoryTaskStore would forget a task with the process that made it). A task is as visible as its
// run is through the HTTP API: to any token with runs:read.

/** How often a client should poll tasks/get, and how often tasks/result looks at the run. */
export const TASK_POLL_MS = 1_000;

export const TASK_STATUS: Record<RunStatus, Task["status"]> = {
  QUEUED: "working",
  RUNNING: "working",
  SLEEPING: "working",
  WAITING_EVENT: "working",
  // A person is needed: a gate's packet waits for a decision, or the run waits to be resumed.
  WAITING_APPROVAL: "input_required",
  NEEDS_ATTENTION: "input_required",
  COMPLETED: "completed",
  FAILED: "failed",
  CANCELLED: "cancelled",
};

export const isTerminalRun = (run: RunRecord) => TERMINAL_STATUSES.includes(run.status);

/** How a person answers a pending packet, in each protocol revision's words. */
const HOW_TO_DECIDE = {
  legacy: "Decide it with decide_packet, or answer the elicitation tasks/result sends.",
  modern:
    "Decide it by answering its input request with tasks/update (or with decide_packet), as someone other than who started the run.",
};

export function statusMessage(
  run: RunRecord,
  pending: DecisionPacket[],
  era: keyof typeof HOW_TO_DECIDE = "legacy",
): string {
  if (pending.length > 0) {
    const p = pending[0];
    return `Waiting for a decision on packet ${p.id} (${p.tool}: ${p.content.impact}). ${HOW_TO_DECIDE[era]}`;
  }
  switch (run.status) {
    case "NEEDS_ATTENTION":
      return "The run needs a person: see get_run's recovery view.";
    case "SLEEPING":
      return `The run sleeps until ${run.wakeAt?.toISOString() ?? "its timer"}.`;
    case "WAITING_EVENT":
      return `The run waits for ${run.waitingFor ?? "an event"}.`;
    default:
      return runStatusSentence(run);
  }
}

export function taskFromRun(run: RunRecord, pending: DecisionPacket[] = []): Task {
  return {
    taskId: run.id,
    status: TASK_STATUS[run.status],
    statusMessage: statusMessage(run, pending),
    createdAt: run.createdAt.toISOString(),
    lastUpdatedAt: run.updatedAt.toISOString(),
    // A run is kept until retention compacts it (TETHER_RETENTION_DAYS), and compacting keeps its outcome.
    ttl: null,
    pollInterval: TASK_POLL_MS,
  };
}

const json = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/** A finished run as the result of the tools/call (start_run) that made it. */
export function resultFromRun(run: RunRecord): CallToolResult {
  const structured = json({ run: presentRun(run), output: run.state.output ?? null });
  if (run.status === "COMPLETED") {
    return {
      content: [{ type: "text", text: JSON.stringify({ id: run.id, status: run.status, output: structured.output }) }],
      structuredContent: structured,
    };
  }
  const text =
    run.status === "FAILED"
      ? `Run ${run.id} failed: ${run.error ?? "no error recorded"}`
      : `Run ${run.id} is ${run.status.toLowerCase()}.`;
  return { content: [{ type: "text", text }], structuredContent: structured, isError: true };
}

const notFound = (taskId: string) => new McpError(ErrorCode.InvalidParams, `Task not found: ${taskId}`);

/** What a task is now, in one revision's terms: its status, why, the packets it asks about, its result once it has one. */
export type RunTaskView = {
  status: Task["status"];
  statusMessage: string;
  pending: DecisionPacket[];
  result?: CallToolResult;
};

/** The TaskStore the SDK's tasks/get and tasks/list handlers read, over the runs (for one principal). */
export class RunTaskStore implements TaskStore {
  constructor(private readonly ctx: McpContext) {}

  private need(scope: ApiScope) {
    if (!hasScope(this.ctx.principal.scopes, scope)) throw toMcpError(forbidden(this.ctx.principal, scope));
  }

  /**
   * The run, or null when there is none (the SDK answers "task not found"). A task is as visible as its
   * run through the HTTP API: any run to runs:read, a gate also to gates:request (as GET /api/gates/:id).
   */
  async findRun(taskId: string): Promise<RunRecord | null> {
    if (hasScope(this.ctx.principal.scopes, "runs:read")) return this.ctx.runtime.store.getRun(taskId);
    if (!hasScope(this.ctx.principal.scopes, "gates:request")) this.need("runs:read");
    const run = await this.ctx.runtime.store.getRun(taskId);
    return run && isGateRun(run) ? run : null;
  }

  /** The packets a task asks its client to decide: a plain run's pending ones; never a gate's (its requester may not decide it). */
  async pendingPackets(run: RunRecord): Promise<DecisionPacket[]> {
    if (TASK_STATUS[run.status] !== "input_required" || isGateRun(run)) return [];
    return this.ctx.runtime.store.findPackets({ runId: run.id, status: ["PENDING"] });
  }

  /**
   * The task a run is. 2025-11-25 maps the run's status (a failed run is a failed task); 2026-07-28's
   * extension keeps `failed` for JSON-RPC errors, so there a failed run is a completed task whose result
   * has isError, and `input_required` means there is a packet to answer. A gate is decided or not.
   */
  async view(run: RunRecord, era: "legacy" | "modern" = "legacy"): Promise<RunTaskView> {
    if (isGateRun(run)) {
      const gate = await gateTaskState(this.ctx, run);
      return { status: gate.status, statusMessage: gate.message, pending: [], result: gate.result };
    }
    const pending = await this.pendingPackets(run);
    const message = statusMessage(run, pending, era);
    if (isTerminalRun(run)) {
      const status = era === "modern" && run.status === "FAILED" ? "completed" : TASK_STATUS[run.status];
      return {
        status,
        statusMessage: message,
        pending,
        ...(run.status === "CANCELLED" && era === "modern" ? {} : { result: resultFromRun(run) }),
      };
    }
    // Waiting on a packet that was just decided, before the worker resumes the run: nothing left to answer.
    const status =
      era === "modern" && run.status === "WAITING_APPROVAL" && pending.length === 0
        ? "working"
        : TASK_STATUS[run.status];
    return { status, statusMessage: message, pending };
  }

  async taskOf(run: RunRecord): Promise<Task> {
    const view = await this.view(run);
    return { ...taskFromRun(run), status: view.status, statusMessage: view.statusMessage };
  }

  /** A task's result once it has one (a finished run; a decided gate), else null. */
  async resultOf(run: RunRecord): Promise<CallToolResult | null> {
    return (await this.view(run)).result ?? null;
  }

  /** tools/call with a task: starts the tool's run (the same idempotency key gives the same task). */
  async createTask(_params: CreateTaskOptions, _requestId: RequestId, request: Request): Promise<Task> {
    const params = request.params as { name?: string; arguments?: unknown } | undefined;
    return this.taskOf(await this.startTask(params?.name ?? "", params?.arguments));
  }

  /** The run a task-augmented tools/call stands for, in either revision (with the tool's scope, as its HTTP route asks). */
  async startTask(toolName: string, args: unknown): Promise<RunRecord> {
    const tool = TOOLS.find((t) => t.name === toolName);
    if (!tool?.startTask) throw new McpError(ErrorCode.InvalidParams, `Tool ${toolName} cannot be called as a task`);
    this.need(tool.scope);
    try {
      return await tool.startTask(this.ctx, args);
    } catch (error) {
      throw toMcpError(error);
    }
  }

  async getTask(taskId: string): Promise<Task | null> {
    try {
      const run = await this.findRun(taskId);
      return run ? await this.taskOf(run) : null;
    } catch (error) {
      throw toMcpError(error);
    }
  }

  async getTaskResult(taskId: string): Promise<Result> {
    const run = await this.findRun(taskId);
    if (!run) throw notFound(taskId);
    const result = await this.resultOf(run);
    if (!result) throw new McpError(ErrorCode.InvalidParams, `Task ${taskId} has not finished (${run.status}).`);
    return result;
  }

  async storeTaskResult(): Promise<void> {
    throw new McpError(ErrorCode.InvalidRequest, "A run's result is the run's own: the worker records it.");
  }

  /** Only cancelling is possible from outside; every other status is the run's to reach. */
  async updateTaskStatus(taskId: string, status: Task["status"], statusMessage?: string): Promise<void> {
    if (status !== "cancelled")
      throw new McpError(
        ErrorCode.InvalidRequest,
        `A task's status follows its run; only cancelling is possible, not ${status}.`,
      );
    await this.cancel(taskId, statusMessage);
  }

  /**
   * Cancels the run. A task already cancelled answers as it is (a repeated cancel is no error); a task
   * that completed or failed cannot be cancelled (-32602, as the tasks spec asks).
   */
  async cancel(taskId: string, reason = "Cancelled through MCP (tasks/cancel)."): Promise<Task> {
    this.need("runs:write");
    const run = await this.findRun(taskId);
    if (!run) throw notFound(taskId);
    if (run.status === "CANCELLED") return this.taskOf(run);
    if (isTerminalRun(run))
      throw new McpError(ErrorCode.InvalidParams, `Cannot cancel task in terminal status: ${TASK_STATUS[run.status]}`);
    try {
      return this.taskOf(
        await this.ctx.runtime.cancelRun({
          runId: run.id,
          by: this.ctx.principal.principal,
          via: `mcp:${this.ctx.principal.name}`,
          reason,
        }),
      );
    } catch (error) {
      // Lost a race with the run finishing, or with another cancel: answer from what it is now.
      const now = isAppError(error, "RUN_NOT_WAITING") ? await this.ctx.runtime.store.getRun(run.id) : null;
      if (now?.status === "CANCELLED") return this.taskOf(now);
      if (now && isTerminalRun(now))
        throw new McpError(
          ErrorCode.InvalidParams,
          `Cannot cancel task in terminal status: ${TASK_STATUS[now.status]}`,
        );
      throw toMcpError(error);
    }
  }

  /** The runs, newest first, as the HTTP API lists them (GET /api/runs); the cursor is a run id. */
  async listTasks(cursor?: string): Promise<{ tasks: Task[]; nextCursor?: string }> {
    this.need("runs:read");
    const limit = 50;
    const runs = await this.ctx.runtime.findRuns({ limit, cursor }).catch((error: unknown) => {
      throw toMcpError(error);
    });
    const tasks = await Promise.all(runs.map((run) => (isGateRun(run) ? this.taskOf(run) : taskFromRun(run))));
    return { tasks, ...(runs.length === limit ? { nextCursor: runs.at(-1)!.id } : {}) };
  }
}

export type { McpContext };
