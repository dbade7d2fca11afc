import type { RunCursor } from "./cursor";
import { decisionSchema, type RecordedDecision } from "./state";
import type { Decision } from "./types";

// Several decisions in one policy answer (a model's parallel tool calls). The first is the
// step's decision; the rest are kept in the run's state (`turn`) and written with the step's commit or
// its intent, so a crash never asks the model again for them. Each following step takes the next one
// instead of asking the policy, and acts on it through the normal path: the permission checked at that
// moment, gates, its own intent, idempotency key and receipt.
//
// The rest of a turn is taken only while the turn goes as the model assumed when it answered: the step
// before ended with the previous call's result, and nothing else moved the run in between. Otherwise —
// a call failed or was refused, a person rejected, redirected or settled it, an approval went stale, an
// operator retried or upgraded the run, a fork started from the middle of a gate — the rest is dropped,
// the trace says why (model.turn_dropped) and the policy is asked again with a "turn_dropped" observation.
// A decision that is not a call (complete, fail, sleep, wait_event, record) may only end a turn: what
// follows one is dropped when the turn begins.

/** The most decisions one answer may hold; the rest are dropped when the turn begins. */
export const MAX_TURN_DECISIONS = 8;

/** Keep the rest of an answer in the state; returns what was kept (recorded as the state holds it). */
export function beginTurn(cursor: RunCursor, first: Decision, rest: Decision[]): RecordedDecision[] {
  if (rest.length === 0) return [];
  const kept: RecordedDecision[] = [];
  let why: string | null = null;
  if (first.kind !== "call") why = `a ${first.kind} decision ends a turn`;
  for (const decision of why ? [] : rest) {
    if (kept.length + 1 >= MAX_TURN_DECISIONS) {
      why = `a turn holds at most ${MAX_TURN_DECISIONS} decisions`;
      break;
    }
    const parsed = decisionSchema.safeParse(decision);
    if (!parsed.success) {
      why = `a ${String((decision as { kind?: unknown }).kind)} decision of the turn is malformed`;
      break;
    }
    kept.push(parsed.data);
    if (parsed.data.kind !== "call") break;
  }
  const dropped = rest.slice(kept.length);
  if (dropped.length > 0) {
    cursor.event("model.turn_dropped", {
      askedAt: cursor.step,
      dropped: dropped.map(label),
      why: why ?? "a decision that is not a call ends a turn",
    });
  }
  if (kept.length > 0)
    cursor.state.turn = { step: cursor.step, next: cursor.step + 1, calls: kept.length + 1, queued: kept };
  return kept;
}

/**
 * The next decision of the turn in progress, or null when the policy must decide (no turn, or the rest
 * of it was dropped: then the trace and the policy's next observation say why).
 */
export function takeFromTurn(cursor: RunCursor): Decision | null {
  const turn = cursor.state.turn;
  if (!turn) return null;
  const last = cursor.state.observations.at(-1);
  const onCourse = turn.next === cursor.step && last?.kind === "tool_result" && last.step === cursor.step - 1;
  if (!onCourse || turn.queued.length === 0) {
    cursor.state.turn = null;
    if (turn.queued.length === 0) return null;
    const why =
      turn.next !== cursor.step || !last
        ? "the run changed since the model chose them"
        : `the call before did not succeed (${last.kind}${last.tool ? ` of ${last.tool}` : ""}: ${last.message})`;
    const dropped = turn.queued.map(label);
    cursor.event("model.turn_dropped", { askedAt: turn.step, dropped, why });
    cursor.observe({
      kind: "turn_dropped",
      message: `The rest of the turn chosen at step ${turn.step} was not made (${dropped.join(", ")}): ${why}. Decide again from the state as it is now.`,
      data: { askedAt: turn.step, dropped },
    });
    return null;
  }
  const [decision, ...rest] = turn.queued;
  const index = turn.calls - rest.length; // 1-based, the first call of the turn being 1
  cursor.state.turn = rest.length > 0 ? { ...turn, next: cursor.step + 1, queued: rest } : null;
  cursor.event("model.turn_next", { decision, turn: { askedAt: turn.step, call: index, of: turn.calls } });
  return decision;
}

function label(decision: Decision): string {
  return decision.kind === "call" ? decision.tool : decision.kind;
}
