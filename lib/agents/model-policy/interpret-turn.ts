import type { Decision, RunState } from "@/lib/runtime";
import { CONTROL_TOOLS, SPAWN_TOOL, type Offer } from "../model-prompt";
import { interpretCall } from "./interpret-call";

// A reply's tool calls, in order, as the step's decision and the queued ones (one call is read by ./interpret-call.ts).

type ToolCallPart = { toolName: string; input: unknown };

/**
 * Every call of the reply, in order. The first must be usable (else the reply is not); a later one that is
 * not is dropped with the calls after it. A control tool ends a turn: one before the last call makes the reply unusable.
 */
export function interpretTurn(
  calls: ToolCallPart[],
  offer: Offer,
  state: RunState,
  text: string,
):
  | { ok: true; decisions: Decision[]; dropped: Array<{ name: string; problem: string }> }
  | { ok: false; problem: string } {
  const control = calls.findIndex((c) => {
    const kind = offer.targets.get(c.toolName)?.kind;
    return kind === "control" || kind === "spawn";
  });
  if (control !== -1 && control < calls.length - 1) {
    return {
      ok: false,
      problem: `it called ${calls[control].toolName} before other tools in the same turn; a control tool (${[...CONTROL_TOOLS, SPAWN_TOOL].join(", ")}) may only be the last call`,
    };
  }
  const decisions: Decision[] = [];
  for (const [i, call] of calls.entries()) {
    const choice = interpretCall(call.toolName, call.input, offer, state, i === 0 ? text : "");
    if (choice.ok) {
      decisions.push(choice.decision);
      continue;
    }
    if (i === 0) return choice;
    return {
      ok: true,
      decisions,
      dropped: calls.slice(i).map((c, j) => ({
        name: c.toolName,
        problem: j === 0 ? choice.problem : "it came after a call that could not be used",
      })),
    };
  }
  return { ok: true, decisions, dropped: [] };
}
