import type { Decision, RunState } from "@/lib/runtime";
import { clip, type Offer } from "../model-prompt";
import { CONTROL, type PlanUpdate } from "./control-tools";
import { META_KEYS } from "./offer-tools";

// One tool call of the model as the engine's decision: an agent tool's call (its plan step the plan's active one, not
// the model's choice), a spawn, or a control tool's decision; or why it cannot be used.

type Interpretation = { ok: true; decision: Decision } | { ok: false; problem: string };

export function interpretCall(
  fn: string,
  rawInput: unknown,
  offer: Offer,
  state: RunState,
  text: string,
): Interpretation {
  const target = offer.targets.get(fn);
  if (!target)
    return {
      ok: false,
      problem: `it called "${fn}", which is not one of the offered tools (${[...offer.targets.keys()].join(", ")})`,
    };
  const input = dropNulls(parseMaybeJson(rawInput));
  if (!isRecord(input))
    return { ok: false, problem: `the input of ${fn} is not a JSON object: ${clip(String(rawInput), 200)}` };

  if (target.kind === "agent") {
    const activeStep = state.plan.find((p) => p.status === "active")?.id;
    const args =
      "args" in input
        ? parseMaybeJson(input.args)
        : Object.fromEntries(Object.entries(input).filter(([k]) => !META_KEYS.includes(k)));
    const reasoning =
      typeof input.reasoning === "string" && input.reasoning ? input.reasoning : text.trim() || undefined;
    const evidence = Array.isArray(input.evidence)
      ? input.evidence.filter((e): e is string => typeof e === "string")
      : [];
    const decision: Decision = {
      kind: "call",
      tool: target.tool,
      args: args ?? {},
      evidence,
      ...(reasoning ? { reasoning: clip(reasoning, 2000) } : {}),
      ...(typeof input.uncertainty === "string" && input.uncertainty
        ? { uncertainty: clip(input.uncertainty, 2000) }
        : {}),
      ...(typeof input.resultKey === "string" && input.resultKey ? { resultKey: input.resultKey } : {}),
      // Not the model's to choose: permission rules match on it. The step the plan is at (docs/security.md).
      ...(activeStep ? { planStep: activeStep } : {}),
    };
    return decided(decision);
  }

  if (target.kind === "spawn") {
    if (typeof input.agent !== "string" || !input.agent)
      return { ok: false, problem: `the arguments of ${fn} are invalid (agent: name the agent to start)` };
    const reason = typeof input.reason === "string" && input.reason ? clip(input.reason, 2000) : undefined;
    return decided({
      kind: "spawn",
      agent: input.agent,
      input: parseMaybeJson(input.input) ?? {},
      ...(reason ? { reason } : {}),
    });
  }

  const parsed = CONTROL[target.tool].check.safeParse(input);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join(".") || "input"}: ${i.message}`).join("; ");
    return { ok: false, problem: `the arguments of ${fn} are invalid (${issues})` };
  }
  const args = parsed.data;
  switch (target.tool) {
    case "complete":
      return decided({ kind: "complete", output: args.output ?? null });
    case "fail":
      return decided({ kind: "fail", reason: String(args.reason) });
    case "sleep":
      return decided({ kind: "sleep", durationMs: Number(args.durationMs), ...optionalReason(args.reason) });
    case "wait_event":
      return decided({
        kind: "wait_event",
        eventType: String(args.eventType),
        ...(args.timeoutMs ? { timeoutMs: Number(args.timeoutMs) } : {}),
        ...optionalReason(args.reason),
      });
    case "record": {
      const facts = (args.facts as Array<{ key: string; value: unknown }>).map((f) => ({
        key: f.key,
        value: f.value ?? null,
        kind: "inference" as const,
      }));
      const updates = args.plan as PlanUpdate | undefined;
      const plan = updates?.length
        ? state.plan.map((step) => ({
            ...step,
            status: updates.findLast((u) => u.id === step.id)?.status ?? step.status,
          }))
        : undefined;
      return decided({ kind: "record", facts, ...(plan ? { plan } : {}), ...optionalReason(args.reason) });
    }
  }
}

function decided(decision: Decision): Interpretation {
  return { ok: true, decision };
}

/** A control tool's optional reason, as the decision carries it: absent when the model gave none. */
function optionalReason(reason: unknown): { reason?: string } {
  return reason ? { reason: String(reason) } : {};
}

/** Some models send nested JSON as a string: '{"orderId":"o1"}'. */
function parseMaybeJson(value: unknown): unknown {
  if (typeof value !== "string" || !/^\s*[[{]/.test(value)) return value;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

/** Optional fields sent as null mean "not given". */
function dropNulls(value: unknown): unknown {
  return isRecord(value) ? Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null)) : value;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
