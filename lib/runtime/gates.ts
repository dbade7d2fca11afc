import { actionDigest, canonicalJson } from "./canonical";
import { findTool, type EngineContext } from "./context";
import type { RunCursor, StepOutcome } from "./cursor";
import { performEffect, performRead, startEffect } from "./effects";
import { EXPIRY_APPROVER, expireGate } from "./expire-gate";
import { resultKeyFor } from "./fact-keys";
import { callRequest, checkPermission, toolVerdict } from "./permission-check";
import { approvalTerms, type PermissionVerdict } from "./permissions";
import { approvalBinding, requestApproval } from "./request-approval";
import type { Action, Pending } from "./state";
import { readWithRetries } from "./tool-call";
import type { DecisionPacket, ToolDefinition } from "./types";

// Human gates, from the run's side (docs/design.md): ask for a decision, then act on the one that won.
// This file acts on it when the run wakes; asking is in request-approval.ts (exported here too, as the
// step's one door to gates), a deadline passing in expire-gate.ts. Deciding a packet (the reviewer's side)
// is in decide-packet.ts.

export { requestApproval };

type GatePending = Extract<Pending, { kind: "gate" }>;

/** Why an approval given earlier does not cover the action under today's rule and registration; null when it does. */
function approvalNoLongerHolds(
  packet: DecisionPacket,
  verdict: PermissionVerdict,
  tool: ToolDefinition,
): string | null {
  const approvers = new Set([...packet.approvers, ...(packet.decidedBy ? [packet.decidedBy] : [])]).size;
  const required = approvalTerms(verdict).approvals;
  // An approval by the expiry (onExpire "approve", said explicitly) counts as the approvers the terms asked for.
  if (packet.decidedBy !== EXPIRY_APPROVER && approvers < required)
    return `the rule now needs ${required} approvers, it had ${approvers}`;
  const given = packet.content.binding;
  if (!given) return null; // asked before approvals were bound to a rule: the checks above are all it had
  const now = approvalBinding(verdict, tool);
  if (given.tool !== now.tool) return "the tool's registration changed";
  if (given.rule !== now.rule) return `the permission rule changed (${given.rule ?? "none"} → ${now.rule ?? "none"})`;
  return null;
}

/** The run was woken while a gate was open: act on the decision, or on the expiry. */
export async function resumeGate(ctx: EngineContext, cursor: RunCursor, pending: GatePending): Promise<StepOutcome> {
  const packet = await ctx.store.getPacket(pending.packetId, cursor.run.workspaceId);
  if (!packet) return cursor.finish("FAILED", `decision packet ${pending.packetId} is missing`);
  const now = cursor.now();

  if (packet.status === "PENDING") {
    if (packet.expiresAt && packet.expiresAt <= now) return expireGate(ctx, cursor, packet);
    return cursor.park(cursor.status, { wakeAt: packet.expiresAt }); // woken early: keep waiting
  }
  const decision = packet.decision!;
  const decided = {
    packetId: packet.id,
    step: packet.step,
    tool: packet.tool,
    digest: decision.digest ?? packet.digest,
    decision: decision.decision,
    by: [...new Set([...packet.approvers, packet.decidedBy ?? ""])].filter(Boolean),
    at: (packet.decidedAt ?? now).toISOString(),
    usedAt: null,
  };
  cursor.state.approvals = [...cursor.state.approvals, decided];
  cursor.addDecisionFact(packet.id, decision, packet.decidedBy ?? undefined);

  // An unknown outcome a person settled: it happened, it did not (skip), or they redirected the run. A retry goes on below.
  if (packet.kind === "UNKNOWN_OUTCOME" && packet.status !== "RETRIED" && packet.status !== "APPROVED")
    return settleUnknown(cursor, packet, pending.intentId!);
  if (packet.status === "REJECTED" || packet.status === "EXPIRED") {
    cursor.observe({
      kind: packet.status === "EXPIRED" ? "expired" : "rejected",
      tool: packet.tool,
      message: `${packet.tool} was ${packet.status === "EXPIRED" ? "not approved in time" : "rejected"}: ${decision.reason ?? "no reason given"}`,
      data: { packetId: packet.id, reason: decision.reason },
    });
    cursor.finishStep();
    return cursor.commit({ status: "RUNNING" });
  }
  if (packet.status === "REDIRECTED") {
    cursor.state.instructions = [...cursor.state.instructions, decision.instruction!];
    cursor.observe({
      kind: "redirected",
      tool: packet.tool,
      message: `A person redirected the run: ${decision.instruction}`,
      data: { packetId: packet.id },
    });
    cursor.finishStep();
    return cursor.commit({ status: "RUNNING" });
  }
  if (packet.status === "STALE")
    return cursor.finish("FAILED", `packet ${packet.id} is stale but the run still waited on it`);

  // APPROVED or EDITED: run exactly the approved action — after checking it is still allowed and still fresh.
  const tool = await findTool(ctx, packet.tool, cursor.run);
  // The run executes what it holds (or the reviewer's edit), and only if it is what was approved.
  const args = decision.decision === "edit" ? decision.args : pending.action.args;
  const action: Action = { ...pending.action, args };
  if (!tool) return refuse(cursor, packet, `tool ${packet.tool} is no longer registered`);

  const verdict = toolVerdict(
    tool,
    await checkPermission(ctx, cursor, callRequest(cursor, cursor.run.agentSlug, tool, action)),
  );
  cursor.event("permission.checked", {
    tool: tool.name,
    effect: verdict.effect,
    reason: verdict.reason,
    ruleVersion: verdict.rule?.version ?? null,
    afterApproval: true,
  });
  if (verdict.effect === "deny")
    return refuse(cursor, packet, `permission was revoked while the run waited: ${verdict.reason}`);

  const digest = actionDigest({
    runId: cursor.runId,
    step: pending.step,
    tool: tool.name,
    args,
    binding: packet.content.binding,
  });
  if (digest !== decided.digest || packet.usedAt) {
    cursor.event("gate.mismatch", {
      packetId: packet.id,
      approvedDigest: decided.digest,
      actionDigest: digest,
      used: Boolean(packet.usedAt),
    });
    return refuse(
      cursor,
      packet,
      packet.usedAt ? "the approval was already used" : "the action differs from the one that was approved",
    );
  }
  if (packet.kind === "APPROVAL" && verdict.effect === "require_approval") {
    // The approval holds only under what it was given for: the same rule version (effect, approver
    // count, conditions) and the same tool registration. Anything else is a new question for people.
    const changed = approvalNoLongerHolds(packet, verdict, tool);
    if (changed) {
      cursor.event("gate.revalidated", {
        packetId: packet.id,
        tool: tool.name,
        why: changed,
        approvedUnder: packet.content.binding ?? null,
        now: approvalBinding(verdict, tool),
      });
      cursor.observe({
        kind: "stale",
        tool: tool.name,
        message: `The approval of ${tool.name} no longer holds (${changed}); it is asked again.`,
        data: { packetId: packet.id },
      });
      return requestApproval(ctx, cursor, tool, action, verdict);
    }
  }

  if (packet.kind === "APPROVAL") {
    const changes = await recheckEvidence(ctx, cursor, packet);
    if (changes.length > 0) {
      cursor.event("gate.stale", { packetId: packet.id, changes });
      cursor.observe({
        kind: "stale",
        tool: tool.name,
        message: `The evidence changed before ${tool.name} ran; the approval was not used.`,
        data: { packetId: packet.id, changes },
      });
      cursor.finishStep();
      return cursor.commit({
        status: "RUNNING",
        updatePacket: {
          id: packet.id,
          version: packet.version,
          status: "STALE",
          content: { ...packet.content, staleChanges: changes },
        },
      });
    }
  }
  cursor.event("gate.acting", { packetId: packet.id, digest, decision: decision.decision });
  if (packet.kind === "UNKNOWN_OUTCOME") {
    // A person checked that it did not happen and asked for it to run again, under the same key.
    const intent = await ctx.store.getIntent(pending.intentId!);
    if (!intent) return refuse(cursor, packet, "the intent record is missing");
    const effect = { kind: "effect" as const, intentId: intent.id, step: packet.step, call: 0, action };
    cursor.state.pending = effect;
    cursor.state.risks = cursor.state.risks.filter((r) => r.id !== intent.id);
    await cursor.commit({
      status: "RUNNING",
      updateIntent: { id: intent.id, status: "PENDING", attempt: intent.attempt, result: null },
      updatePacket: { id: packet.id, version: packet.version, usedAt: now },
    });
    return performEffect(ctx, cursor, tool, effect, intent.attempt + 1);
  }
  if (tool.semantics === "pure-read") return performRead(ctx, cursor, tool, action);
  return startEffect(ctx, cursor, tool, action, packet);
}

/**
 * An unknown outcome a person settled without a retry. "It happened" (and a redirect, which says what to do
 * instead) leaves a decision fact where the call's result would be: a person's word, not a receipt.
 * "It did not happen — skip it" (or a reject/expiry of a packet stored before the in-doubt words) fails the intent.
 */
async function settleUnknown(cursor: RunCursor, packet: DecisionPacket, intentId: string): Promise<StepOutcome> {
  const decision = packet.decision!;
  const by = packet.decidedBy ?? undefined;
  const happened = packet.status === "CONFIRMED" || packet.status === "REDIRECTED";
  let message: string;
  if (packet.status === "CONFIRMED") {
    message = `A person confirmed that ${packet.tool} happened${decision.receipt ? ` (receipt ${decision.receipt})` : ""}${decision.note ? `: ${decision.note}` : ""}`;
  } else if (packet.status === "REDIRECTED") {
    cursor.state.instructions = [...cursor.state.instructions, decision.instruction!];
    message = `A person resolved it: ${decision.instruction}`;
  } else {
    message = `A person confirmed that ${packet.tool} did not happen; it is skipped${decision.reason ? `: ${decision.reason}` : ""}`;
  }
  if (happened) {
    const action = cursor.state.pending?.kind === "gate" ? cursor.state.pending.action : undefined;
    const value =
      packet.status === "CONFIRMED"
        ? {
            happened: true,
            confirmedBy: packet.decidedBy,
            ...(decision.receipt ? { receipt: decision.receipt } : {}),
            ...(decision.note ? { note: decision.note } : {}),
          }
        : { confirmedBy: packet.decidedBy, note: decision.instruction };
    // Where the call's result would be — never in the place of a fact the tool does not own (fact-keys.ts).
    const { key } = resultKeyFor(cursor.state, packet.tool, action?.resultKey);
    cursor.addFact({
      key,
      value,
      kind: "decision",
      source: {
        by,
        packetId: packet.id,
        operationId: intentId,
        ...(decision.receipt ? { receiptId: decision.receipt } : {}),
      },
    });
  }
  cursor.state.risks = cursor.state.risks.filter((r) => r.id !== intentId);
  cursor.observe({
    kind: "resolved",
    tool: packet.tool,
    message,
    data: { packetId: packet.id, operationId: intentId, decision: decision.decision },
  });
  cursor.finishStep();
  const status = happened ? "RESOLVED" : "FAILED";
  return cursor.commit({
    status: "RUNNING",
    updateIntent: {
      id: intentId,
      status,
      attempt: 0,
      result: {
        resolvedBy: packet.decidedBy,
        decision: decision.decision,
        message,
        ...(decision.receipt ? { receipt: decision.receipt } : {}),
      },
    },
  });
}

async function refuse(cursor: RunCursor, packet: DecisionPacket, why: string): Promise<StepOutcome> {
  cursor.event("gate.refused", { packetId: packet.id, tool: packet.tool, why });
  cursor.observe({
    kind: "denied",
    tool: packet.tool,
    message: `The approved ${packet.tool} was not executed: ${why}`,
    data: { packetId: packet.id },
  });
  cursor.finishStep();
  return cursor.commit({ status: "RUNNING" });
}

/** Re-read every observation the packet rested on; return what changed since the reviewer saw it. */
async function recheckEvidence(ctx: EngineContext, cursor: RunCursor, packet: DecisionPacket) {
  const changes: Array<{ key: string; before: unknown; after: unknown }> = [];
  for (const item of packet.content.evidence) {
    const tool =
      item.kind === "observation" && item.source.tool ? await findTool(ctx, item.source.tool, cursor.run) : undefined;
    if (!tool || tool.semantics !== "pure-read") continue;
    // Retried like any read: a provider's blip must not throw away a person's approval as "stale".
    const result = await readWithRetries(
      ctx,
      cursor,
      tool,
      item.source.args,
      { runId: cursor.runId, step: cursor.step, operationId: `recheck:${packet.id}` },
      (attempt, r) =>
        cursor.event("evidence.rechecked", {
          packetId: packet.id,
          key: item.key,
          tool: tool.name,
          attempt,
          ok: r.ok,
          latencyMs: r.latencyMs,
          ...(r.ok ? {} : { error: r.error.message }),
        }),
    );
    if (!result.ok) {
      changes.push({ key: item.key, before: item.value, after: { unavailable: result.error.message } });
      continue;
    }
    if (canonicalJson(result.value) !== canonicalJson(item.value)) {
      changes.push({ key: item.key, before: item.value, after: result.value });
      cursor.addFact({
        key: item.key,
        value: result.value,
        kind: "observation",
        source: item.source,
        expiresAt: tool.freshnessMs ? new Date(cursor.now().getTime() + tool.freshnessMs).toISOString() : null,
      });
    }
  }
  return changes;
}
