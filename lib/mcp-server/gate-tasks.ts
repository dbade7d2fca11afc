import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { EXTERNAL_GATE_AGENT } from "@/lib/agents/external-gate";
import { getGate, requestGate } from "@/lib/commands/request-gate";
import { isDecided, type GateView } from "@/lib/gates/gate-view";
import { AppError } from "@/lib/runtime/errors";
import type { RunRecord } from "@/lib/runtime/types";
import type { McpContext } from "./context";

// request_approval's tasks: the task is the open gate (lib/commands/request-gate.ts, the same command as
// POST /api/gates), whose id is its run's. The requester cannot approve its own gate (the run's startedBy
// is the requester, so decidePacket refuses it), so the task never asks its client anything: it is
// `working` while the gate waits for a person in the inbox, and `completed` once the gate is decided,
// its result the gate as GET /api/gates/:id shows it (status, approvedArgs, reason, approvers, digest…).
// The gate run itself goes on until the caller reports the outcome (POST /api/gates/:id/outcome).

export const isGateRun = (run: RunRecord) => run.agentSlug === EXTERNAL_GATE_AGENT;

/** Opens the gate as the token's owner; the same idempotencyKey gives the same gate (and task). */
export async function startGateTask(ctx: McpContext, args: unknown): Promise<RunRecord> {
  if (typeof args === "object" && args !== null && "callbackUrl" in args) {
    // The callback's signing secret is shown once, and a task handle has no place for it.
    throw new AppError("INVALID_INPUT", {
      message: "callbackUrl through MCP",
      userMessage: "The request is invalid.",
      fieldErrors: {
        callbackUrl: ["An MCP client follows the task instead; ask through POST /api/gates for a signed callback."],
      },
    });
  }
  const gate = await requestGate(
    { db: ctx.db, runtime: ctx.runtime },
    { requestedBy: ctx.principal.principal, input: args ?? {} },
  );
  return ctx.runtime.getRun(gate.gateId);
}

export type GateTaskState = {
  status: "working" | "completed" | "cancelled";
  gate: GateView;
  result?: CallToolResult;
  message: string;
};

export async function gateTaskState(ctx: McpContext, run: RunRecord): Promise<GateTaskState> {
  const gate = await getGate({ runtime: ctx.runtime }, run.id);
  // Cancelled before anyone decided (the gate view calls a run that ended without a packet "rejected").
  if (run.status === "CANCELLED" && gate.decidedBy === null)
    return { status: "cancelled", gate, message: "The gate was cancelled." };
  if (isDecided(gate.status)) {
    const structured = JSON.parse(JSON.stringify(gate)) as Record<string, unknown>;
    return {
      status: "completed",
      gate,
      message: `The gate was decided: ${gate.status}${gate.decidedBy ? ` by ${gate.decidedBy}` : ""}.${gate.status === "approved" || gate.status === "edited" ? " Run the action with approvedArgs, then report the outcome (POST /api/gates/:id/outcome)." : ""}`,
      result: { content: [{ type: "text", text: JSON.stringify(structured) }], structuredContent: structured },
    };
  }
  return {
    status: "working",
    gate,
    message: `Waiting for a person to decide in the inbox${gate.packetId ? ` (packet ${gate.packetId})` : ""}; you cannot approve your own request.`,
  };
}
