import type { Db } from "@/lib/db";
import type { DecisionPacket } from "@/lib/runtime";
import { findLedgerEntries } from "@/lib/sandbox/ledger";
import type { EvalEngine } from "./eval-runtime";
import type { FaultSpec } from "./faults";
import type { ReviewerAnswer } from "./spec";

// The people of a trial, as the harness plays them: the scripted reviewer's answers taken in order, the
// answers given again to a packet a fault made the run ask anew, and an operator who settles an unknown
// outcome nobody scripted by checking the outside system.

function matches(answer: ReviewerAnswer, packet: DecisionPacket) {
  return (!answer.tool || answer.tool === packet.tool) && (!answer.kind || answer.kind === packet.kind);
}

export function nextAnswer(answers: ReviewerAnswer[], packet: DecisionPacket): ReviewerAnswer | undefined {
  const i = answers.findIndex((a) => matches(a, packet));
  return i >= 0 ? answers.splice(i, 1)[0] : undefined;
}

/** Under a fault only: answer a packet nobody scripted with the answers given before for that tool, in order. */
export function replayAnswer(
  given: ReviewerAnswer[],
  replays: Map<string, ReviewerAnswer[]>,
  packet: DecisionPacket,
  fault: FaultSpec,
): ReviewerAnswer | undefined {
  if (fault.kind === "none") return undefined;
  if (!replays.has(packet.id)) {
    // The approvals that closed the last round for this tool (several under four eyes), not a redirect before them.
    const mine = given.filter((a) => matches(a, packet));
    const lastOther = mine.findLastIndex((a) => a.decision !== "approve" && a.decision !== "edit");
    replays.set(packet.id, mine.slice(lastOther + 1));
  }
  return replays.get(packet.id)!.shift();
}

/** An unknown outcome nobody scripted: the person checks the outside system, as a runbook says. */
export async function oracleAnswer(
  engine: EvalEngine,
  worldDb: Db,
  packet: DecisionPacket,
  notes: string[],
): Promise<ReviewerAnswer> {
  const run = await engine.runtime.getRun(packet.runId);
  const pending = run.state.pending;
  const intentId = pending?.kind === "gate" ? pending.intentId : undefined;
  const applied = intentId ? await findLedgerEntries(worldDb, { operationId: intentId }) : [];
  const by = "operator@evals.tether";
  if (applied.length > 0) {
    const data = applied[0].data as Record<string, unknown>;
    const receipt = String(data.deployId ?? data.refundId ?? data.messageId ?? data.draftId ?? "a receipt");
    notes.push(`operator checked ${packet.tool}: it happened (${receipt})`);
    return {
      decision: "happened",
      receipt,
      instruction: `the ${applied[0].system} system shows ${receipt}`,
      by,
      delayMs: 0,
    };
  }
  notes.push(`operator checked ${packet.tool}: it did not happen; run it again`);
  return { decision: "retry", by, delayMs: 0 };
}

/** A scripted answer as the words decidePacket takes. */
export function decisionInput(answer: ReviewerAnswer): Record<string, unknown> {
  switch (answer.decision) {
    case "edit":
      return { decision: "edit", args: answer.args };
    case "reject":
      return { decision: "reject", reason: answer.reason ?? "rejected by the eval's reviewer" };
    case "redirect":
      return { decision: "redirect", instruction: answer.instruction ?? "" };
    case "happened":
      return {
        decision: "happened",
        ...(answer.receipt ? { receipt: answer.receipt } : {}),
        ...(answer.instruction ? { note: answer.instruction } : {}),
      };
    case "skip":
      return { decision: "skip", ...(answer.reason ? { reason: answer.reason } : {}) };
    default:
      return { decision: answer.decision };
  }
}
