import { actionDigest, canonicalJson, type ApprovalBinding } from "./canonical";
import type { EngineContext } from "./context";
import type { RunCursor, StepOutcome } from "./cursor";
import { safeImpact } from "./impact";
import { approvalTerms, type PermissionVerdict } from "./permissions";
import { latestFact, type Action } from "./state";
import { APPROVAL_OPTIONS, type PacketContent, type ToolDefinition } from "./types";

// Opening a gate: the packet a person is asked to decide, with the evidence it rests on and the binding (rule
// version, tool registration) it is asked under, so that acting on the answer later (gates.ts) can tell
// whether the answer still covers the action.

export async function requestApproval(
  ctx: EngineContext,
  cursor: RunCursor,
  tool: ToolDefinition,
  action: Action,
  verdict: PermissionVerdict,
): Promise<StepOutcome> {
  const now = cursor.now();
  const terms = approvalTerms(verdict);
  const packetId = ctx.ids.id("pkt");
  const binding = approvalBinding(verdict, tool);
  const digest = actionDigest({ runId: cursor.runId, step: cursor.step, tool: tool.name, args: action.args, binding });
  const expiresAt = terms.ttlSeconds ? new Date(now.getTime() + terms.ttlSeconds * 1000) : null;
  if (tool.external) recordCallerEvidence(cursor, tool.external.evidence);
  const content: PacketContent = {
    impact: safeImpact(tool, action.args),
    reasoning: action.reasoning,
    uncertainty: action.uncertainty,
    evidence: action.evidence.flatMap((key) => {
      const fact = latestFact(cursor.state, key);
      return fact
        ? [
            {
              key,
              value: fact.value,
              kind: fact.kind,
              at: fact.at,
              ageMs: now.getTime() - Date.parse(fact.at),
              source: fact.source,
            },
          ]
        : [];
    }),
    options: [...APPROVAL_OPTIONS],
    binding,
    why: verdict.reason,
  };
  cursor.state.pending = { kind: "gate", packetId, step: cursor.step, action };
  cursor.event("gate.requested", {
    packetId,
    tool: tool.name,
    args: action.args,
    digest,
    binding,
    impact: content.impact,
    reason: verdict.reason,
    requiredApprovals: terms.approvals,
    queue: terms.queue,
    onExpire: terms.onExpire,
    expiresAt: expiresAt?.toISOString() ?? null,
  });
  return cursor.park("WAITING_APPROVAL", {
    wakeAt: expiresAt,
    createPacket: {
      id: packetId,
      runId: cursor.runId,
      step: cursor.step,
      kind: "APPROVAL",
      tool: tool.name,
      args: action.args,
      digest,
      requestedBy: `agent:${cursor.run.agentSlug}`,
      traits: { capability: tool.capability, semantics: tool.semantics },
      content,
      queue: terms.queue,
      assignee: null,
      requiredApprovals: terms.approvals,
      onExpire: terms.onExpire,
      expiresAt,
    },
  });
}

/**
 * The caller's evidence as facts of the run (observations an outside party gave, never the model's), so the
 * packet cites them as it cites a read tool's. A key already holding the same value is not written again.
 */
function recordCallerEvidence(cursor: RunCursor, evidence: NonNullable<ToolDefinition["external"]>["evidence"]) {
  for (const item of evidence) {
    const known = latestFact(cursor.state, item.key);
    if (known && canonicalJson(known.value) === canonicalJson(item.value)) continue;
    // Observed when the caller says (never in the future), else now.
    const at = item.at && Date.parse(item.at) <= cursor.now().getTime() ? new Date(item.at).toISOString() : undefined;
    cursor.addFact({
      key: item.key,
      value: item.value,
      kind: "observation",
      source: { by: item.source ? `external:${item.source}` : "external" },
      ...(at ? { at } : {}),
    });
  }
}

export function approvalBinding(verdict: PermissionVerdict, tool: ToolDefinition): ApprovalBinding {
  return { rule: verdict.rule ? `${verdict.rule.id}@v${verdict.rule.version}` : null, tool: tool.registration ?? null };
}
