import { z } from "zod";
import { hasScope, type ApiScope } from "@/lib/api/scopes";
import type { ApiPrincipal } from "@/lib/api/tokens";
import { startRun } from "@/lib/commands/start-run";
import type { Db } from "@/lib/db";
import type { Runtime } from "@/lib/runtime";
import { fieldErrorsFromIssues, isAppError } from "@/lib/runtime/errors";
import type { RunRecord } from "@/lib/runtime/types";
import { A2aError, errorInfo, invalidParams, taskNotFound } from "./errors";
import {
  cancelTaskRequestSchema,
  getTaskRequestSchema,
  sendMessageRequestSchema,
  type Message,
  type SendMessageRequest,
  type Task,
} from "./protocol";
import { idempotencyKeyFor, SETTLED_TASK_STATES, taskFromRun, TERMINAL_TASK_STATES } from "./task";

// The A2A methods Tether serves, over the same commands as the HTTP API: a new message starts a run
// (startRun), a reply on a task decides its packet (runtime.decidePacket, which enforces roles, queue
// deciders, separation of duties and the digest), CancelTask cancels the run. Scopes are the API's.

export type A2aContext = { principal: ApiPrincipal; runtime: Runtime; db: Db; blockingWaitMs: number };

/** How long a blocking SendMessage waits for its task to settle before answering with it as it is. */
export const BLOCKING_WAIT_MS = 25_000;
const POLL_MS = 100;

function need(ctx: A2aContext, scope: ApiScope) {
  if (!hasScope(ctx.principal.scopes, scope)) {
    throw new A2aError(
      "server",
      `This token does not have the "${scope}" scope.`,
      [errorInfo("FORBIDDEN", { scope })],
      403,
    );
  }
}

/** params through a protocol schema; -32602 names each field that failed. */
function parseParams<S extends z.ZodType>(schema: S, params: unknown): z.infer<S> {
  const parsed = schema.safeParse(params ?? {});
  if (!parsed.success) throw invalidParams(fieldErrorsFromIssues(parsed.error.issues));
  return parsed.data;
}

async function taskOf(ctx: A2aContext, run: RunRecord): Promise<Task> {
  return taskFromRun(run, await ctx.runtime.store.findPackets({ runId: run.id }));
}

async function findRun(ctx: A2aContext, taskId: string): Promise<RunRecord> {
  const run = await ctx.runtime.store.getRun(taskId);
  if (!run) throw taskNotFound(taskId);
  return run;
}

/** The message's one DataPart (the run's input, or a decision): other content types are refused. */
function dataOf(message: Message): { data: unknown; index: number } {
  const files = message.parts.findIndex((p) => p.raw !== undefined || p.url !== undefined);
  if (files >= 0)
    throw new A2aError(
      "contentTypeNotSupported",
      "Tether reads text and data parts only; send files by reference inside the data.",
      [errorInfo("CONTENT_TYPE_NOT_SUPPORTED", { field: `message.parts.${files}` })],
    );
  const data = message.parts.flatMap((p, index) => (p.data !== undefined ? [{ data: p.data, index }] : []));
  if (data.length !== 1)
    throw invalidParams({
      "message.parts": [
        `Send exactly one DataPart (found ${data.length}): the run's input {"agent"?, "input"} for a new task, or a decision on a task that waits for input.`,
      ],
    });
  return data[0];
}

const startData = z.object({ agent: z.string().trim().min(1).max(200).optional(), input: z.unknown() });
const skillIdOf = (metadata: Record<string, unknown> | undefined) =>
  typeof metadata?.skillId === "string" ? metadata.skillId : undefined;

/** Waits (bounded) until the task is terminal or needs input, then answers with it as it is. */
async function settled(ctx: A2aContext, runId: string, request: SendMessageRequest): Promise<Task> {
  const deadline = Date.now() + (request.configuration?.returnImmediately ? 0 : ctx.blockingWaitMs);
  for (;;) {
    const task = await taskOf(ctx, await findRun(ctx, runId));
    if (SETTLED_TASK_STATES.includes(task.status.state) || Date.now() >= deadline) return task;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** A message without a taskId: a new task, i.e. a new run of the agent its DataPart or skill names. */
async function startTask(ctx: A2aContext, request: SendMessageRequest): Promise<Task> {
  need(ctx, "runs:write");
  const { message } = request;
  const { data, index } = dataOf(message);
  const parsed = startData.safeParse(data);
  if (!parsed.success)
    throw invalidParams(
      Object.fromEntries(
        Object.entries(fieldErrorsFromIssues(parsed.error.issues)).map(([k, v]) => [
          `message.parts.${index}.data.${k}`,
          v,
        ]),
      ),
    );
  const skill = skillIdOf(message.metadata) ?? skillIdOf(request.metadata);
  if (parsed.data.agent && skill && parsed.data.agent !== skill)
    throw invalidParams({
      "message.metadata.skillId": [`The skill (${skill}) and the DataPart's agent (${parsed.data.agent}) differ.`],
    });
  const agent = parsed.data.agent ?? skill;
  if (!agent)
    throw invalidParams({
      "message.metadata.skillId": [
        'Name the agent: a skill id from the agent card (message.metadata.skillId) or "agent" in the DataPart.',
      ],
    });
  const { run, created } = await startRun(ctx, {
    agent,
    input: parsed.data.input,
    idempotencyKey: idempotencyKeyFor(message),
    startedBy: ctx.principal.principal,
  });
  if (!created && run.startedBy !== ctx.principal.principal)
    throw invalidParams({ "message.messageId": ["This message id was already used in this context; send a new one."] });
  return settled(ctx, run.id, request);
}

const replyData = z.object({ packetId: z.string().trim().min(1).max(200).optional() }).passthrough();

/** A message on a task: the decision on the packet the task waits for, by the token's person. */
async function replyToTask(ctx: A2aContext, request: SendMessageRequest, taskId: string): Promise<Task> {
  need(ctx, "packets:decide");
  const run = await findRun(ctx, taskId);
  const packets = await ctx.runtime.store.findPackets({ runId: run.id });
  if (TERMINAL_TASK_STATES.includes(taskFromRun(run, packets).status.state)) {
    throw new A2aError("unsupportedOperation", "The task has ended: it accepts no further messages.", [
      errorInfo("TASK_TERMINAL", { taskId }),
    ]);
  }
  const { data, index } = dataOf(request.message);
  const parsed = replyData.safeParse(data);
  if (!parsed.success)
    throw invalidParams({ [`message.parts.${index}.data`]: ['A decision is an object: {"decision": …}.'] });
  const { packetId, ...decision } = parsed.data;
  const pending = packets.filter((p) => p.status === "PENDING");
  const packet = packetId ? packets.find((p) => p.id === packetId) : pending[0];
  if (packetId && !packet)
    throw invalidParams({
      [`message.parts.${index}.data.packetId`]: [`Packet ${packetId} is not one of this task's.`],
    });
  if (!packetId && pending.length > 1)
    throw invalidParams({
      [`message.parts.${index}.data.packetId`]: [
        `The task waits on ${pending.length} packets: name the one you decide.`,
      ],
    });
  if (!packet)
    throw new A2aError("unsupportedOperation", "The task is not waiting for a decision.", [
      errorInfo("TASK_NOT_WAITING", { taskId }),
    ]);
  await ctx.runtime.decidePacket({
    packetId: packet.id,
    reviewer: ctx.principal.principal,
    via: `a2a:${ctx.principal.name}`,
    input: decision,
  });
  return settled(ctx, run.id, request);
}

export async function sendMessage(ctx: A2aContext, params: unknown): Promise<{ task: Task }> {
  const request = parseParams(sendMessageRequestSchema, params);
  const taskId = request.message.taskId;
  return { task: taskId ? await replyToTask(ctx, request, taskId) : await startTask(ctx, request) };
}

export async function getTask(ctx: A2aContext, params: unknown): Promise<Task> {
  need(ctx, "runs:read");
  const { id } = parseParams(getTaskRequestSchema, params);
  return taskOf(ctx, await findRun(ctx, id));
}

const notCancelable = (task: Task) =>
  new A2aError("taskNotCancelable", `The task cannot be canceled: it is ${task.status.state}.`, [
    errorInfo("TASK_NOT_CANCELABLE", { taskId: task.id, state: task.status.state }),
  ]);

/** Cancels the run; a task already canceled answers as it is (cancelling is idempotent, §3.3.1). */
export async function cancelTask(ctx: A2aContext, params: unknown): Promise<Task> {
  need(ctx, "runs:write");
  const { id, metadata } = parseParams(cancelTaskRequestSchema, params);
  const run = await findRun(ctx, id);
  const task = await taskOf(ctx, run);
  if (task.status.state === "TASK_STATE_CANCELED") return task;
  if (TERMINAL_TASK_STATES.includes(task.status.state)) throw notCancelable(task);
  const reason =
    typeof metadata?.reason === "string" ? metadata.reason.slice(0, 1000) : "Cancelled through A2A (CancelTask).";
  try {
    return await taskOf(
      ctx,
      await ctx.runtime.cancelRun({
        runId: run.id,
        by: ctx.principal.principal,
        via: `a2a:${ctx.principal.name}`,
        reason,
      }),
    );
  } catch (error) {
    // Lost a race with the run ending, or with another cancel: answer from what it is now.
    if (!isAppError(error, "RUN_NOT_WAITING")) throw error;
    const now = await taskOf(ctx, await findRun(ctx, run.id));
    if (now.status.state === "TASK_STATE_CANCELED") return now;
    throw notCancelable(now);
  }
}
