import { z } from "zod";
import { actionDigest, canonicalJson } from "./canonical";
import { findTool, type EngineContext } from "./context";
import { budgetExtensionSchema } from "./budget";
import { AppError, parseInput } from "./errors";
import { auditNote } from "./store";
import { actingWorkspace } from "./workspace";
import {
  decisionOptions,
  type DecisionPacket,
  type PacketDecision,
  type PacketStatus,
  type ToolDefinition,
} from "./types";

// The reviewer's side of a gate. Validation happens before anything is written; the decision and its
// trace event are one compare-and-set transaction in the store; the run wakes after commit.

export const decidePacketSchema = z.discriminatedUnion("decision", [
  z.object({ decision: z.literal("approve") }),
  z.object({ decision: z.literal("edit"), args: z.unknown() }),
  z.object({
    decision: z.literal("reject"),
    reason: z.string().trim().min(1, "Say why you reject it: the agent receives the reason."),
  }),
  z.object({
    decision: z.literal("redirect"),
    instruction: z.string().trim().min(1, "Give the agent an instruction."),
  }),
  // An unknown outcome: the person checked the outside system and says what it shows.
  z.object({
    decision: z.literal("happened"),
    receipt: z.string().trim().max(500).optional(),
    note: z.string().trim().max(2000).optional(),
  }),
  z.object({ decision: z.literal("retry") }),
  z.object({ decision: z.literal("skip"), reason: z.string().trim().max(2000).optional() }),
]);
export type DecidePacketInput = z.input<typeof decidePacketSchema>;

/** Top-level arguments an edit changed that the tool does not let a reviewer edit (money, recipients…). */
function lockedFieldsChanged(tool: ToolDefinition, before: unknown, after: unknown): string[] {
  if (!tool.editableFields) return [];
  const was = (before ?? {}) as Record<string, unknown>;
  const now = (after ?? {}) as Record<string, unknown>;
  const keys = new Set([...Object.keys(was), ...Object.keys(now)]);
  return [...keys]
    .filter((key) => !tool.editableFields!.includes(key) && canonicalJson(was[key]) !== canonicalJson(now[key]))
    .sort();
}

const STATUS_BY_DECISION: Record<PacketDecision["decision"], PacketStatus> = {
  approve: "APPROVED",
  edit: "EDITED",
  reject: "REJECTED",
  redirect: "REDIRECTED",
  happened: "CONFIRMED",
  retry: "RETRIED",
  skip: "SKIPPED",
};

export type DecidePacketOptions = {
  packetId: string;
  reviewer: string;
  input: unknown;
  via?: string;
  /** The workspace the reviewer acts in (null: the system); by default the one entered. */
  workspaceId?: string | null;
};

export async function decidePacket(ctx: EngineContext, opts: DecidePacketOptions): Promise<DecisionPacket> {
  const input = parseInput(decidePacketSchema, opts.input, "decision", "The decision is incomplete.");
  const packet = await ctx.store.getPacket(opts.packetId, actingWorkspace(opts.workspaceId));
  if (!packet)
    throw new AppError("NOT_FOUND", {
      message: `packet ${opts.packetId} not found`,
      userMessage: "That decision packet does not exist.",
    });
  // An expired packet and stale evidence are not a lost race: each has its own code, so the reviewer
  // is told which. A packet past its deadline is refused even before the worker has expired it.
  if (
    packet.status === "EXPIRED" ||
    (packet.status === "PENDING" && packet.expiresAt && packet.expiresAt <= ctx.clock.now())
  ) {
    throw new AppError("PACKET_EXPIRED", {
      message: `packet ${packet.id} expired at ${packet.expiresAt?.toISOString() ?? "?"}`,
      userMessage: "This packet expired before it was decided; its expiry policy (reject or escalate) applies.",
    });
  }
  if (packet.status === "STALE") {
    throw new AppError("PACKET_STALE", {
      message: `packet ${packet.id} is stale`,
      userMessage: `The evidence changed after this packet was approved (${(packet.content.staleChanges ?? []).map((c) => c.key).join(", ") || "see the packet"}), so the approval was not used; the agent asks again with fresh data.`,
    });
  }
  if (packet.status !== "PENDING") {
    throw new AppError("PACKET_ALREADY_DECIDED", {
      message: `packet ${packet.id} is ${packet.status}`,
      userMessage: `This packet was already decided (${packet.status.toLowerCase()})${packet.decidedBy ? ` by ${packet.decidedBy}` : ""}.`,
    });
  }
  const options = decisionOptions(packet);
  if (!options.includes(input.decision)) {
    throw new AppError("INVALID_INPUT", {
      message: `${input.decision} is not an option for packet ${packet.id}`,
      userMessage: `"${input.decision}" is not possible here; choose one of: ${options.join(", ")}.`,
    });
  }
  const run = await ctx.store.getRun(packet.runId);
  const refusal = await ctx.authorizeDecision(opts.reviewer, packet);
  if (refusal)
    throw new AppError("FORBIDDEN", {
      message: `${opts.reviewer} may not decide packet ${packet.id}: ${refusal}`,
      userMessage: refusal,
    });
  // Running an unsafe call again is an approval like any other: never by whoever asked for it.
  const isApproval = input.decision === "approve" || input.decision === "edit" || input.decision === "retry";
  if (isApproval && (opts.reviewer === packet.requestedBy || opts.reviewer === run?.startedBy)) {
    throw new AppError("FORBIDDEN", {
      message: `${opts.reviewer} requested packet ${packet.id} and cannot approve it`,
      userMessage: "You requested this action, so you cannot approve it. Another reviewer must.",
    });
  }

  let decision: PacketDecision;
  if (input.decision === "edit") {
    if (packet.requiredApprovals > 1) {
      throw new AppError("INVALID_INPUT", {
        message: "edit on a four-eyes packet",
        userMessage:
          "This action needs several approvers, so it cannot be edited; reject it with a reason or redirect the agent.",
      });
    }
    if (packet.kind === "BUDGET") {
      // Not a tool call: the edit says how much more budget the run gets (budget.ts).
      const extension = parseInput(
        budgetExtensionSchema,
        input.args,
        "budget extension",
        "Say how much more the run may use: a positive number of toolCalls, tokens or usd.",
      );
      decision = {
        decision: "edit",
        args: extension,
        digest: actionDigest({
          runId: packet.runId,
          step: packet.step,
          tool: packet.tool,
          args: extension,
          binding: packet.content.binding,
        }),
      };
      return finalDecision(ctx, packet, opts, input, decision);
    }
    const tool = await findTool(ctx, packet.tool, run);
    if (!tool)
      throw new AppError("UNKNOWN_TOOL", {
        message: `tool ${packet.tool} is not registered`,
        userMessage: `The tool ${packet.tool} no longer exists.`,
      });
    const args = parseInput(
      tool.input,
      input.args,
      `edited arguments for ${tool.name}`,
      "The edited arguments are not valid for this tool.",
    );
    const locked = lockedFieldsChanged(tool, packet.args, args);
    if (locked.length > 0) {
      throw new AppError("INVALID_INPUT", {
        message: `edit of ${locked.join(", ")} on ${tool.name}`,
        userMessage: `These fields cannot be edited here: ${locked.join(", ")}. Reject with a reason or redirect the agent, so the change is asked again under the rule.`,
        fieldErrors: Object.fromEntries(locked.map((field) => [field, ["This field cannot be edited in review."]])),
      });
    }
    decision = {
      decision: "edit",
      args,
      digest: actionDigest({
        runId: packet.runId,
        step: packet.step,
        tool: packet.tool,
        args,
        binding: packet.content.binding,
      }),
    };
  } else if (input.decision === "approve" || input.decision === "retry") {
    decision = { decision: input.decision, digest: packet.digest };
  } else if (input.decision === "reject") {
    decision = { decision: "reject", reason: input.reason };
  } else if (input.decision === "redirect") {
    decision = { decision: "redirect", instruction: input.instruction };
  } else if (input.decision === "happened") {
    decision = {
      decision: "happened",
      ...(input.receipt ? { receipt: input.receipt } : {}),
      ...(input.note ? { note: input.note } : {}),
    };
  } else {
    decision = { decision: "skip", ...(input.reason ? { reason: input.reason } : {}) };
  }

  return finalDecision(ctx, packet, opts, input, decision);
}

async function finalDecision(
  ctx: EngineContext,
  packet: DecisionPacket,
  opts: { reviewer: string; via?: string },
  input: z.output<typeof decidePacketSchema>,
  decision: PacketDecision,
): Promise<DecisionPacket> {
  const now = ctx.clock.now();
  const waitedMs = now.getTime() - packet.createdAt.getTime();
  const approvalsAfter = input.decision === "approve" ? packet.approvers.length + 1 : 0;
  const audit = auditNote(
    "packets.decide",
    packet.id,
    { by: opts.reviewer, via: opts.via },
    { ...input, runId: packet.runId, tool: packet.tool },
  );
  if (input.decision === "approve" && approvalsAfter < packet.requiredApprovals) {
    // Four eyes: record this approval; the packet stays open for a different reviewer.
    return ctx.store.decidePacket({
      packetId: packet.id,
      workspaceId: packet.workspaceId,
      version: packet.version,
      approver: opts.reviewer,
      audit,
      events: [
        {
          type: "gate.approval_recorded",
          step: packet.step,
          data: {
            packetId: packet.id,
            by: opts.reviewer,
            approvals: approvalsAfter,
            required: packet.requiredApprovals,
          },
        },
      ],
    });
  }
  return ctx.store.decidePacket({
    packetId: packet.id,
    workspaceId: packet.workspaceId,
    version: packet.version,
    approver: input.decision === "approve" ? opts.reviewer : undefined,
    final: { status: STATUS_BY_DECISION[input.decision], decision, decidedBy: opts.reviewer, now },
    audit,
    events: [
      {
        type: "gate.decided",
        step: packet.step,
        data: { packetId: packet.id, tool: packet.tool, by: opts.reviewer, waitedMs, ...decision },
      },
    ],
  });
}
