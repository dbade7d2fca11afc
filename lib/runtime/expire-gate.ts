import type { EngineContext } from "./context";
import type { RunCursor, StepOutcome } from "./cursor";
import { expiryPolicyOf, formatExpiryPolicy } from "./expiry";
import type { DecisionPacket } from "./types";

// A gate whose deadline passed with no decision: the run's side of the packet's expiry policy, applied when
// the run wakes at the deadline (gates.ts). What the policies are and how they are written is in expiry.ts.

/** Who decided a packet its expiry approved (onExpire "approve", only where a rule or a gate said so). */
export const EXPIRY_APPROVER = "system:expiry";

/**
 * The deadline passed with no decision: the packet's expiry policy (expiry.ts) applies. Escalation moves
 * it to the chain's next queue with that step's deadline (the rest of the chain stays in onExpire); an
 * explicit "approve" approves it as system:expiry; anything else rejects it, as before.
 */
export async function expireGate(ctx: EngineContext, cursor: RunCursor, packet: DecisionPacket): Promise<StepOutcome> {
  const now = cursor.now();
  const policy = expiryPolicyOf(packet.onExpire);
  if (policy.kind === "escalate" && policy.chain.length > 0) {
    // Never a silent auto-decision: the packet moves to another queue with a fresh deadline.
    // A step without its own deadline gets the packet's first window: written out now, so the rest of the
    // chain kept in onExpire says its deadlines explicitly (createdAt no longer tells the first window later).
    const firstWindow = packet.expiresAt!.getTime() - packet.createdAt.getTime();
    const [next, ...rest] = policy.chain.map((step) => ({
      ...step,
      windowMs: step.windowMs ?? Math.max(firstWindow, 1000),
    }));
    const expiresAt = new Date(now.getTime() + Math.max(next.windowMs, 1000));
    const onExpire = formatExpiryPolicy({ kind: "escalate", chain: rest });
    cursor.event("gate.escalated", {
      packetId: packet.id,
      from: packet.queue,
      to: next.queue,
      expiresAt: expiresAt.toISOString(),
      onExpire,
    });
    return cursor.park("WAITING_APPROVAL", {
      wakeAt: expiresAt,
      updatePacket: {
        id: packet.id,
        version: packet.version,
        queue: next.queue,
        expiresAt,
        onExpire,
        content: { ...packet.content, escalatedFrom: packet.queue },
      },
    });
  }
  const waitedMs = now.getTime() - packet.createdAt.getTime();
  if (policy.kind === "approve") {
    // Decided, not acted on here: the next step acts on it like on any approval (re-checked, digest-bound).
    const decision = {
      decision: "approve" as const,
      digest: packet.digest,
      reason: "expired",
      note: "approved by its expiry policy (onExpire: approve)",
    };
    cursor.event("gate.expired", { packetId: packet.id, tool: packet.tool, waitedMs, onExpire: "approve" });
    cursor.event("gate.decided", {
      packetId: packet.id,
      tool: packet.tool,
      by: EXPIRY_APPROVER,
      waitedMs,
      ...decision,
    });
    return cursor.commit({
      status: "RUNNING",
      updatePacket: {
        id: packet.id,
        version: packet.version,
        status: "APPROVED",
        decision,
        decidedBy: EXPIRY_APPROVER,
      },
    });
  }
  const decision = { decision: "reject" as const, reason: "expired" };
  cursor.event("gate.expired", { packetId: packet.id, tool: packet.tool, waitedMs });
  cursor.addDecisionFact(packet.id, decision, "policy:expiry");
  cursor.observe({
    kind: "expired",
    tool: packet.tool,
    message: `${packet.tool} was not approved in time (reason: expired)`,
    data: { packetId: packet.id },
  });
  cursor.finishStep();
  return cursor.commit({
    status: "RUNNING",
    updatePacket: { id: packet.id, version: packet.version, status: "EXPIRED", decision, decidedBy: "policy:expiry" },
  });
}
