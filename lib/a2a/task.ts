import { runStatusSentence } from "@/lib/run-status-sentence";
import type { DecisionPacket, RunRecord } from "@/lib/runtime/types";
import type { Artifact, Part, Task, TaskState } from "./protocol";

// A Tether run as an A2A Task: the task id is the run id, its state follows the run's status, a pending
// decision packet is the input the task requires (as a DataPart), and the run's output is its artifact.

const KEY_PREFIX = "a2a:";

/**
 * The run's idempotency key for a message: the same message id (in the same context) starts one run.
 * The context id is length-prefixed so it can be read back from the key, unambiguously.
 */
export function idempotencyKeyFor(message: { messageId: string; contextId?: string }): string {
  const context = message.contextId ?? "";
  return `${KEY_PREFIX}${context.length}:${context}:${message.messageId}`;
}

/** The context a task belongs to: the client's context id it was started in, else the task's own id. */
export function contextIdOf(run: Pick<RunRecord, "id" | "idempotencyKey">): string {
  const match = /^a2a:(\d+):/.exec(run.idempotencyKey ?? "");
  if (!match) return run.id;
  const start = match[0].length;
  const context = run.idempotencyKey!.slice(start, start + Number(match[1]));
  return context || run.id;
}

/** The packets a person may still decide on this run. */
const pendingOf = (packets: DecisionPacket[]) => packets.filter((p) => p.status === "PENDING");

/** The run's most recent decision, if any. */
function latestDecided(packets: DecisionPacket[]): DecisionPacket | undefined {
  return packets.filter((p) => p.decidedAt).sort((a, b) => b.decidedAt!.getTime() - a.decidedAt!.getTime())[0];
}

/** A run that ended after a person rejected what it proposed, and nothing was decided after that, is a rejected task. */
function wasRejected(run: RunRecord, packets: DecisionPacket[]): boolean {
  return run.status === "COMPLETED" && latestDecided(packets)?.status === "REJECTED";
}

export function taskStateOf(run: RunRecord, packets: DecisionPacket[]): TaskState {
  switch (run.status) {
    case "QUEUED":
      return "TASK_STATE_SUBMITTED";
    case "RUNNING":
    case "SLEEPING":
    case "WAITING_EVENT":
      return "TASK_STATE_WORKING";
    // Waiting on a person: a pending packet (or an operator, for a run that needs attention without
    // one). A decided packet the worker has not acted on yet is work in progress.
    case "WAITING_APPROVAL":
      return pendingOf(packets).length > 0 ? "TASK_STATE_INPUT_REQUIRED" : "TASK_STATE_WORKING";
    case "NEEDS_ATTENTION":
      return "TASK_STATE_INPUT_REQUIRED";
    case "COMPLETED":
      return wasRejected(run, packets) ? "TASK_STATE_REJECTED" : "TASK_STATE_COMPLETED";
    case "FAILED":
      return "TASK_STATE_FAILED";
    case "CANCELLED":
      return "TASK_STATE_CANCELED";
  }
}

export const TERMINAL_TASK_STATES: readonly TaskState[] = [
  "TASK_STATE_COMPLETED",
  "TASK_STATE_FAILED",
  "TASK_STATE_CANCELED",
  "TASK_STATE_REJECTED",
];
/** The states a blocking SendMessage returns in (§3.2.2): terminal, or interrupted until someone answers. */
export const SETTLED_TASK_STATES: readonly TaskState[] = [
  ...TERMINAL_TASK_STATES,
  "TASK_STATE_INPUT_REQUIRED",
  "TASK_STATE_AUTH_REQUIRED",
];

/** What a reviewer needs to decide a packet, as the data of a DataPart. */
export function packetData(packet: DecisionPacket) {
  const { content } = packet;
  return {
    packetId: packet.id,
    kind: packet.kind,
    tool: packet.tool,
    args: packet.args,
    impact: content.impact,
    evidence: content.evidence,
    options: content.options,
    digest: packet.digest,
    ...(content.reasoning ? { reasoning: content.reasoning } : {}),
    ...(content.uncertainty ? { uncertainty: content.uncertainty } : {}),
    ...(content.why ? { why: content.why } : {}),
    requiredApprovals: packet.requiredApprovals,
    approvals: packet.approvers.length,
    expiresAt: packet.expiresAt?.toISOString() ?? null,
  };
}

function statusText(run: RunRecord, state: TaskState, packets: DecisionPacket[]): string {
  const pending = pendingOf(packets);
  if (pending.length > 0) {
    return `Waiting for a decision on ${pending.map((p) => `${p.id} (${p.tool}: ${p.content.impact})`).join("; ")}. Reply on this task with a DataPart {"decision": "approve" | "edit" | "reject" | "redirect", …}.`;
  }
  switch (state) {
    case "TASK_STATE_INPUT_REQUIRED":
      return "The run needs an operator (see the run's recovery view in Tether).";
    case "TASK_STATE_REJECTED":
      return `A reviewer rejected the proposed action: ${latestDecided(packets)?.decision?.reason ?? "no reason given"}`;
    default:
      return runStatusSentence(run);
  }
}

const json = (value: unknown): unknown => JSON.parse(JSON.stringify(value ?? null));

function outputArtifact(run: RunRecord): Artifact[] {
  if (run.status !== "COMPLETED" || run.state.output === undefined) return [];
  return [
    {
      artifactId: `${run.id}-output`,
      name: "output",
      description: "The run's output.",
      parts: [{ data: json(run.state.output), mediaType: "application/json" }],
    },
  ];
}

/** The task of a run, given all its packets (pending ones become the input it requires). */
export function taskFromRun(run: RunRecord, packets: DecisionPacket[]): Task {
  const state = taskStateOf(run, packets);
  const contextId = contextIdOf(run);
  const parts: Part[] = [{ text: statusText(run, state, packets) }];
  if (state === "TASK_STATE_INPUT_REQUIRED") {
    for (const packet of pendingOf(packets))
      parts.push({
        data: json(packetData(packet)),
        mediaType: "application/json",
        metadata: { kind: "tether.decision-packet" },
      });
  }
  const artifacts = outputArtifact(run);
  return {
    id: run.id,
    contextId,
    status: {
      state,
      message: { messageId: `${run.id}-status-${run.eventSeq}`, contextId, taskId: run.id, role: "ROLE_AGENT", parts },
      timestamp: run.updatedAt.toISOString(),
    },
    ...(artifacts.length ? { artifacts } : {}),
    metadata: {
      tether: {
        runId: run.id,
        agent: run.agentSlug,
        agentVersion: run.agentVersion,
        runStatus: run.status,
        startedBy: run.startedBy,
      },
    },
  };
}
