import { canonicalJson, type TraceEvent } from "@/lib/runtime";

// What a run did, step by step, as its trace tells it: the decision, the tool and its arguments, the
// permission check's outcome, whether a person was asked and what they said, how the call ended. The
// recorded run and its replay are both read this way, so two runs that acted alike read alike whatever
// their ids, times and operation ids.

export type ReplayAction = {
  step: number;
  decision: string;
  tool: string | null;
  /** A call's arguments; a record's facts; a completion's output; a failure's reason. */
  args: unknown;
  permission: string | null;
  gate: boolean;
  review: string | null;
  outcome: string | null;
};

const DECISION_EVENTS = new Set(["model.decision", "model.replayed", "model.turn_next"]);

function argsOf(decision: Record<string, unknown>): unknown {
  switch (decision.kind) {
    case "call":
      return decision.args ?? null;
    case "record":
      return (
        (decision.facts as Array<{ key: string; value: unknown }> | undefined)?.map((f) => ({
          key: f.key,
          value: f.value,
        })) ?? []
      );
    case "complete":
      return decision.output ?? null;
    case "fail":
      return decision.reason ?? null;
    case "sleep":
      return decision.durationMs ?? null;
    case "wait_event":
      return decision.eventType ?? null;
    default:
      return null;
  }
}

export function actionsOf(events: TraceEvent[]): ReplayAction[] {
  const actions: ReplayAction[] = [];
  const current = () => actions.at(-1);
  for (const event of events) {
    const data = event.data;
    if (DECISION_EVENTS.has(event.type)) {
      const decision = (data.decision ?? {}) as Record<string, unknown>;
      actions.push({
        step: event.step,
        decision: String(decision.kind),
        tool: typeof decision.tool === "string" ? decision.tool : null,
        args: argsOf(decision),
        permission: null,
        gate: false,
        review: null,
        outcome: null,
      });
      continue;
    }
    const action = current();
    if (!action) continue;
    switch (event.type) {
      case "permission.checked":
        // The check made again after a person approved is the gate's business, not the decision's.
        if (!data.afterApproval && action.permission === null) action.permission = String(data.effect);
        break;
      case "gate.requested":
        action.gate = true;
        break;
      case "gate.decided":
        action.review = String(data.decision);
        break;
      case "tool.call":
        action.outcome = data.error === undefined ? "succeeded" : `failed (${String(data.errorClass)})`; // the last attempt's
        break;
      case "tool.rejected":
        action.outcome = `rejected (${String(data.code)})`;
        break;
    }
  }
  return actions;
}

export type ArgsChange = { path: string; recorded: unknown; replayed: unknown };

/** Where two JSON values differ, as dot paths (at most `max` of them). */
export function diffArgs(recorded: unknown, replayed: unknown, path = "", max = 20): ArgsChange[] {
  if (canonicalJson(recorded ?? null) === canonicalJson(replayed ?? null)) return [];
  const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null;
  if (isObject(recorded) && isObject(replayed) && Array.isArray(recorded) === Array.isArray(replayed)) {
    const keys = [...new Set([...Object.keys(recorded), ...Object.keys(replayed)])].sort();
    return keys
      .flatMap((key) => diffArgs(recorded[key], replayed[key], path ? `${path}.${key}` : key, max))
      .slice(0, max);
  }
  return [{ path: path || "(whole)", recorded: recorded ?? null, replayed: replayed ?? null }];
}

const FIELDS = ["decision", "tool", "args", "permission", "gate", "review", "outcome"] as const satisfies ReadonlyArray<
  keyof ReplayAction
>;
export type ActionField = (typeof FIELDS)[number];

export type FirstDifference = {
  /** The index of the action (0 = the first decision) and the step it was taken at on each side. */
  index: number;
  step: number;
  fields: Array<ActionField | "missing">;
  recorded: ReplayAction | null;
  replayed: ReplayAction | null;
  argsDiff: ArgsChange[];
};

/** The first action the two runs took differently, or null when they acted alike. */
export function firstDifference(recorded: ReplayAction[], replayed: ReplayAction[]): FirstDifference | null {
  for (let i = 0; i < Math.max(recorded.length, replayed.length); i++) {
    const a = recorded[i] ?? null;
    const b = replayed[i] ?? null;
    if (!a || !b)
      return { index: i, step: (a ?? b)!.step, fields: ["missing"], recorded: a, replayed: b, argsDiff: [] };
    const fields = FIELDS.filter((f) => canonicalJson(a[f] ?? null) !== canonicalJson(b[f] ?? null));
    if (fields.length > 0)
      return {
        index: i,
        step: a.step,
        fields,
        recorded: a,
        replayed: b,
        argsDiff: fields.includes("args") ? diffArgs(a.args, b.args) : [],
      };
  }
  return null;
}
