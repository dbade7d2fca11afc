import { z } from "zod";
import { actionDigest } from "./canonical";
import type { EngineContext } from "./context";
import type { RunCursor, StepOutcome } from "./cursor";
import { budgetLimitsSchema, type Action, type BudgetLimits, type Pending, type RunState } from "./state";
import type { DecisionPacket } from "./types";
import { takeDecision } from "./woken-packet";

// Per-run budgets: tool calls, tokens and dollars. Crossing one never fails the run: it parks it with a
// decision packet ("budget reached: 10 tool calls of 10 — continue with more, or stop"). Approving
// extends the budget by the packet's proposal, an edit says by how much, a rejection stops the run
// (CANCELLED: a person ended it, it did not finish). The counts live in the state, so a crash keeps them.
//
// Tool calls are checked at the moment of calling (the call waits in the pending budget and runs once
// extended, without asking the policy again); tokens and dollars before the policy is asked again (what
// the last answer cost is spent already, the next one is what the budget guards).

/** The packet's tool name: not a tool, the run's budget. */
export const BUDGET_TOOL = "run.budget";

/** What a reviewer's approve or edit of a budget packet says: how much more of each. */
export const budgetExtensionSchema = z
  .object({
    extendBy: budgetLimitsSchema.refine(
      (limits) => Object.values(limits).some((v) => v !== undefined),
      "Extend at least one of toolCalls, tokens or usd.",
    ),
  })
  .strict();
export type BudgetExtension = z.infer<typeof budgetExtensionSchema>;

type BudgetPending = Extract<Pending, { kind: "budget" }>;
type Dimension = keyof BudgetLimits;
export type BudgetReached = { dimension: Dimension; used: number; limit: number };

/** The run's limits: the agent's, with the run start's fields taking their place (a field the start leaves out stays the agent's). */
export function budgetFor(agent: BudgetLimits | undefined, run: BudgetLimits | undefined): BudgetLimits {
  return Object.fromEntries(Object.entries({ ...agent, ...run }).filter(([, v]) => v !== undefined)) as BudgetLimits;
}

/** The next call would go past the tool-call limit. */
export function toolCallBudgetReached(state: RunState): BudgetReached | null {
  const limit = state.budget.limits.toolCalls;
  return limit !== undefined && state.budget.toolCalls >= limit
    ? { dimension: "toolCalls", used: state.budget.toolCalls, limit }
    : null;
}

/** The model's tokens or cost reached a limit: asking it again would spend past the budget. */
export function spendBudgetReached(state: RunState): BudgetReached | null {
  const { tokens, usd } = state.budget.limits;
  const usedTokens = state.usage.inputTokens + state.usage.outputTokens;
  if (tokens !== undefined && usedTokens >= tokens) return { dimension: "tokens", used: usedTokens, limit: tokens };
  if (usd !== undefined && state.usage.costUsd >= usd)
    return { dimension: "usd", used: state.usage.costUsd, limit: usd };
  return null;
}

/** "3 tool calls of 3", "12,000 tokens of 10,000", "$0.52 of $0.50". */
export function describeReached({ dimension, used, limit }: BudgetReached): string {
  if (dimension === "usd") return `$${used.toFixed(2)} of $${limit.toFixed(2)}`;
  const n = (v: number) => v.toLocaleString("en-US");
  return dimension === "tokens"
    ? `${n(used)} tokens of ${n(limit)}`
    : `${n(used)} tool call${used === 1 ? "" : "s"} of ${n(limit)}`;
}

/** Park the run on a budget packet; `action` is the call it was about to make (null: the policy was about to be asked). */
export function parkAtBudget(
  cursor: RunCursor,
  ctx: EngineContext,
  reached: BudgetReached,
  action: Action | null,
): Promise<StepOutcome> {
  const packetId = ctx.ids.id("pkt");
  // The proposal: as much again as the limit reached. The reviewer approves it or edits the amount.
  const args: BudgetExtension = { extendBy: { [reached.dimension]: reached.limit } };
  const digest = actionDigest({ runId: cursor.runId, step: cursor.step, tool: BUDGET_TOOL, args });
  const impact = `budget reached: ${describeReached(reached)}: continue with more, or stop`;
  cursor.state.pending = { kind: "budget", packetId, step: cursor.step, action };
  cursor.event("budget.reached", {
    packetId,
    ...reached,
    limits: cursor.state.budget.limits,
    nextCall: action?.tool ?? null,
  });
  return cursor.park("WAITING_APPROVAL", {
    createPacket: {
      id: packetId,
      runId: cursor.runId,
      step: cursor.step,
      kind: "BUDGET",
      tool: BUDGET_TOOL,
      args,
      digest,
      requestedBy: `agent:${cursor.run.agentSlug}`,
      traits: null,
      content: {
        impact,
        evidence: [],
        options: ["approve", "edit", "reject"],
        why: `The run used ${describeReached(reached)} of its budget${action ? `; its next call (${action.tool}) waits` : ""}. Approve to continue with the proposed extension, edit it to give more or less, or reject to stop the run.`,
      },
      queue: "default",
      assignee: null,
      requiredApprovals: 1,
      onExpire: "reject",
      expiresAt: null,
    },
  });
}

/**
 * The run was woken while a budget packet was open: extend and go on (the held call, or the policy: null),
 * stop, or keep waiting.
 */
export async function resumeBudget(
  ctx: EngineContext,
  cursor: RunCursor,
  pending: BudgetPending,
  act: (action: Action) => Promise<StepOutcome>,
): Promise<StepOutcome | null> {
  const taken = await takeDecision(ctx, cursor, pending.packetId, "budget");
  if ("outcome" in taken) return taken.outcome;
  const { packet, decision, by } = taken;
  cursor.state.approvals = [
    ...cursor.state.approvals,
    {
      packetId: packet.id,
      step: packet.step,
      tool: packet.tool,
      digest: decision.digest ?? packet.digest,
      decision: decision.decision,
      by: [by],
      at: (packet.decidedAt ?? cursor.now()).toISOString(),
      usedAt: cursor.now().toISOString(),
    },
  ];
  cursor.state.pending = null;

  const extension =
    packet.status === "APPROVED" || packet.status === "EDITED"
      ? budgetExtensionSchema.safeParse(decision.decision === "edit" ? decision.args : packet.args)
      : null;
  if (!extension?.success)
    return stop(cursor, packet, by, decision.reason ?? (extension ? "the extension was malformed" : "no reason given"));
  const limits = extend(cursor.state, extension.data.extendBy);
  cursor.state.budget = { ...cursor.state.budget, limits };
  cursor.event("budget.extended", { packetId: packet.id, by, extendBy: extension.data.extendBy, limits });
  return pending.action ? act(pending.action) : null; // null: the policy decides, written with its step's commit
}

/** "N more from here": added to what is used when that went past the limit (a model answer can overshoot). */
function extend(state: RunState, by: BudgetLimits): BudgetLimits {
  const used: Record<Dimension, number> = {
    toolCalls: state.budget.toolCalls,
    tokens: state.usage.inputTokens + state.usage.outputTokens,
    usd: state.usage.costUsd,
  };
  const next = { ...state.budget.limits };
  for (const dimension of ["toolCalls", "tokens", "usd"] as const) {
    const more = by[dimension];
    if (more !== undefined) next[dimension] = Math.max(next[dimension] ?? 0, used[dimension]) + more;
  }
  return next;
}

function stop(cursor: RunCursor, packet: DecisionPacket, by: string, reason: string): Promise<StepOutcome> {
  cursor.event("budget.stopped", {
    packetId: packet.id,
    by,
    reason,
    limits: cursor.state.budget.limits,
    toolCalls: cursor.state.budget.toolCalls,
    usage: cursor.state.usage,
  });
  return cursor.finish("CANCELLED", `stopped at its budget by ${by}: ${reason}`);
}
