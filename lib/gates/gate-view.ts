import { gateRunInputSchema, GATE_OUTCOME_SIGNAL } from "@/lib/agents/external-gate";
import type { Gate, GateOutcome, GateStatus, OutcomeStatus } from "@/lib/client/types";
import { TERMINAL_STATUSES, type DecisionPacket, type RunRecord, type SignalRecord } from "@/lib/runtime";

// What GET /api/gates/:id answers (docs/gates-api.md): the gate run seen through its newest approval
// packet and the caller's outcome report. Pure, so the route, the long-poll and the callback send the same.

/** The answer is the client's `Gate` (lib/client/types.ts): one definition of what the server sends and clients read. */
export type GateView = Gate;
export const CALLER_OUTCOMES = ["happened", "failed", "not_done"] as const satisfies readonly OutcomeStatus[];

const STATUS_OF_PACKET: Partial<Record<DecisionPacket["status"], GateStatus>> = {
  APPROVED: "approved",
  EDITED: "edited",
  REJECTED: "rejected",
  REDIRECTED: "redirected",
  EXPIRED: "expired",
};

export const isDecided = (status: GateStatus) => status !== "pending";

/** The packet a gate's answer comes from: the newest approval packet of its run (a re-asked one replaces the first). */
export function gatePacketOf(packets: DecisionPacket[]): DecisionPacket | null {
  const approvals = packets.filter((p) => p.kind === "APPROVAL");
  return approvals.reduce<DecisionPacket | null>(
    (newest, p) => (!newest || p.createdAt >= newest.createdAt ? p : newest),
    null,
  );
}

export function buildGateView(run: RunRecord, packet: DecisionPacket | null, signals: SignalRecord[]): GateView {
  const input = gateRunInputSchema.parse(run.input);
  const decision = packet?.decision ?? null;
  let status: GateStatus = packet ? (STATUS_OF_PACKET[packet.status] ?? "pending") : "pending";
  let reason: string | null = null;
  if (status === "rejected") reason = decision?.reason ?? null;
  else if (status === "redirected") reason = decision?.instruction ?? null;
  else if (status === "expired")
    reason = `not decided by ${packet!.expiresAt?.toISOString() ?? "its deadline"}: rejected by its expiry policy`;
  else if (status === "approved" && packet?.decidedBy === "system:expiry")
    reason = `not decided by ${packet.expiresAt?.toISOString() ?? "its deadline"}: approved by its expiry policy (onExpire: approve)`;
  if ((status === "approved" || status === "edited") && !packet!.usedAt && TERMINAL_STATUSES.includes(run.status)) {
    // Approved, but the run ended without using the approval: a re-check refused it (the tool closed to gates
    // meanwhile), or an operator cancelled the run. The caller must not act on it.
    status = "rejected";
    reason =
      run.status === "CANCELLED"
        ? "the gate run was cancelled"
        : `the approval was not used: ${run.state.observations.at(-1)?.message ?? run.error ?? "the gate run ended"}`;
  } else if (status === "pending" && TERMINAL_STATUSES.includes(run.status)) {
    // Ended without a decision: a permission rule closed the tool to gates, an operator cancelled the run, or it failed.
    status = "rejected";
    reason =
      run.status === "CANCELLED"
        ? "the gate run was cancelled"
        : (run.state.observations.at(-1)?.message ?? run.error ?? `the gate run ended ${run.status.toLowerCase()}`);
  }
  const approvedArgs = status === "approved" ? packet!.args : status === "edited" ? decision?.args : null;
  const approvers = packet
    ? [
        ...new Set([
          ...packet.approvers,
          ...(status === "approved" || status === "edited" ? [packet.decidedBy ?? ""] : []),
        ]),
      ].filter(Boolean)
    : [];
  const report = signals.find((s) => s.type === GATE_OUTCOME_SIGNAL);
  const payload = (report?.payload ?? {}) as Omit<GateOutcome, "reportedAt">;
  const expiresAt = packet
    ? packet.expiresAt
    : input.expiresInSeconds
      ? new Date(run.createdAt.getTime() + input.expiresInSeconds * 1000)
      : null;
  return {
    gateId: run.id,
    status,
    action: { tool: input.action.tool, args: input.action.args },
    approvedArgs: (approvedArgs as Record<string, unknown> | null | undefined) ?? null,
    reason,
    approvers,
    decidedBy: status === "pending" ? null : (packet?.decidedBy ?? null),
    decidedAt: status === "pending" ? null : (packet?.decidedAt?.toISOString() ?? null),
    digest: decision?.digest ?? packet?.digest ?? null,
    packetId: packet?.id ?? null,
    expiresAt: expiresAt?.toISOString() ?? null,
    outcome: report
      ? {
          status: payload.status,
          ...(payload.receipt !== undefined ? { receipt: payload.receipt } : {}),
          ...(payload.detail ? { detail: payload.detail } : {}),
          reportedAt: report.receivedAt.toISOString(),
        }
      : null,
    metadata: input.metadata ?? null,
    createdAt: run.createdAt.toISOString(),
  };
}
