import { z } from "zod";
import { AppError, fieldErrorsFromIssues } from "./errors";

// The run's explicit state (docs/design.md). The transcript is not the record: this is.
// Every change of shape bumps STATE_SCHEMA_VERSION and adds an upgrade to UPGRADES.

export const STATE_SCHEMA_VERSION = 4;

export const FACT_KINDS = ["decision", "receipt", "observation", "inference"] as const;
export type FactKind = (typeof FACT_KINDS)[number];

/** What a fact of each kind may be relied on for. The console shows this next to every fact. */
export const FACT_AUTHORITY: Record<FactKind, { authority: string; expires: boolean }> = {
  decision: { authority: "a person decided; binding until they decide otherwise", expires: false },
  receipt: { authority: "an external system confirmed it; proof that an effect happened", expires: false },
  observation: { authority: "a read tool returned it; true when read, may go stale", expires: true },
  inference: { authority: "the model believes it; unverified, never enough on its own", expires: false },
};

const jsonValue = z.unknown();

export const factSchema = z.object({
  id: z.string(),
  key: z.string(),
  value: jsonValue,
  kind: z.enum(FACT_KINDS),
  at: z.string(), // ISO time it was learned
  step: z.number().int(),
  expiresAt: z.string().nullable().default(null),
  /** Where it came from: the read (tool + args) that can re-check it, the receipt id, the person. */
  source: z
    .object({
      tool: z.string().optional(),
      args: jsonValue.optional(),
      receiptId: z.string().optional(),
      operationId: z.string().optional(),
      by: z.string().optional(),
      packetId: z.string().optional(),
    })
    .default({}),
});
export type Fact = z.infer<typeof factSchema>;

export const actionSchema = z.object({
  tool: z.string(),
  args: jsonValue,
  planStep: z.string().optional(),
  resultKey: z.string().optional(), // the fact key the result is kept under (default: the tool name)
  reasoning: z.string().optional(),
  uncertainty: z.string().optional(),
  evidence: z.array(z.string()).default([]), // fact keys the action rests on
});
export type Action = z.infer<typeof actionSchema>;

export const planSchema = z.array(
  z.object({ id: z.string(), title: z.string(), status: z.enum(["pending", "active", "done", "skipped", "failed"]) }),
);

/** A policy's decision as the state records it (the rest of a model turn, a fork's replay); types.ts `Decision`. */
export const decisionSchema = z.discriminatedUnion("kind", [
  actionSchema.extend({ kind: z.literal("call") }),
  z.object({ kind: z.literal("sleep"), durationMs: z.number(), reason: z.string().optional() }),
  z.object({
    kind: z.literal("wait_event"),
    eventType: z.string(),
    timeoutMs: z.number().optional(),
    reason: z.string().optional(),
  }),
  z.object({
    kind: z.literal("record"),
    facts: z.array(z.object({ key: z.string(), value: jsonValue, kind: z.literal("inference").optional() })),
    plan: planSchema.optional(),
    reason: z.string().optional(),
  }),
  z.object({ kind: z.literal("complete"), output: jsonValue }),
  z.object({ kind: z.literal("fail"), reason: z.string() }),
  z.object({ kind: z.literal("spawn"), agent: z.string(), input: jsonValue, reason: z.string().optional() }),
]);
export type RecordedDecision = z.infer<typeof decisionSchema>;

/**
 * The rest of a policy answer that made several decisions at once (a model's parallel tool calls, turns.ts):
 * asked at `step`, the next one is taken at step `next` without asking again; `calls` counts the whole turn.
 */
export const turnSchema = z.object({
  step: z.number().int(),
  next: z.number().int(),
  calls: z.number().int(),
  queued: z.array(decisionSchema),
});
export type Turn = z.infer<typeof turnSchema>;

/** A forked run's replay (replay.ts): the source run's recorded decisions, by step and the digest of what its policy was given. */
export const replaySchema = z.object({
  from: z.string(),
  decisions: z.array(
    z.object({
      step: z.number().int(),
      inputDigest: z.string(),
      decision: decisionSchema,
      queued: z.array(decisionSchema),
    }),
  ),
});
export type Replay = z.infer<typeof replaySchema>;

/** A run's budget (budget.ts): each limit optional; a reviewer's extension raises it. */
export const budgetLimitsSchema = z
  .object({
    usd: z.number().positive().optional(),
    tokens: z.number().int().positive().optional(),
    toolCalls: z.number().int().positive().optional(),
  })
  .strict();
export type BudgetLimits = z.infer<typeof budgetLimitsSchema>;

export const pendingSchema = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("effect"),
    intentId: z.string(),
    step: z.number().int(),
    call: z.number().int(),
    action: actionSchema,
  }),
  z.object({
    kind: z.literal("gate"),
    packetId: z.string(),
    step: z.number().int(),
    action: actionSchema,
    intentId: z.string().optional(),
  }),
  z.object({ kind: z.literal("event"), eventType: z.string(), timeoutAt: z.string().nullable() }),
  z.object({ kind: z.literal("sleep"), until: z.string() }),
  // The run reached its budget and waits for a person to extend it or stop it; `action` is the call it was about to make.
  z.object({
    kind: z.literal("budget"),
    packetId: z.string(),
    step: z.number().int(),
    action: actionSchema.nullable(),
  }),
  // The run's agent version is no longer loaded: a person upgrades or cancels it (agent-version-gone.ts).
  // `then`: what it waited on before, waited on again after the upgrade (a Pending, read back with this schema).
  z.object({ kind: z.literal("version"), packetId: z.string(), step: z.number().int(), then: z.unknown() }),
  // A child run this step started (children.ts): the run waits for it to end, then records its outcome.
  // `checks`: how often it looked at a child still going (the backstop's wait doubles each time).
  z.object({
    kind: z.literal("child"),
    childRunId: z.string(),
    agent: z.string(),
    step: z.number().int(),
    checks: z.number().int().nonnegative().default(0),
  }),
]);
export type Pending = z.infer<typeof pendingSchema>;

/** What the last step taught the agent: fed to the policy before it decides again. */
export const observationSchema = z.object({
  step: z.number().int(),
  // "retried": an operator retried the failed run; what the policy saw before it (a tool error, say) is history.
  // (Kinds are only ever added: a stored state stays valid without an upgrade.)
  // "turn_dropped": the rest of a model turn was not made (turns.ts); "key_refused": a fact was kept under another key (fact-keys.ts).
  kind: z.enum([
    "tool_result",
    "tool_error",
    "denied",
    "rejected",
    "redirected",
    "stale",
    "expired",
    "signal",
    "timer",
    "timeout",
    "resolved",
    "retried",
    "policy_error",
    "upgraded",
    "turn_dropped",
    "key_refused",
    "child",
  ]),
  tool: z.string().optional(),
  message: z.string(),
  data: jsonValue.optional(),
});
export type Observation = z.infer<typeof observationSchema>;

/** The observations with one more, newest last: the policy reads the last few; older ones stay in checkpoints. */
export function appendObservation(observations: Observation[], observation: Observation): Observation[] {
  return [...observations.slice(-19), observation];
}

export const runStateSchema = z.object({
  schemaVersion: z.literal(STATE_SCHEMA_VERSION),
  agent: z.object({ slug: z.string(), version: z.string(), instructionsHash: z.string() }),
  instructions: z.array(z.string()), // the agent's instructions, then every redirect a person gave
  input: jsonValue,
  step: z.number().int().nonnegative(), // the next step to take
  plan: planSchema,
  facts: z.array(factSchema),
  approvals: z.array(
    z.object({
      packetId: z.string(),
      step: z.number().int(),
      tool: z.string(),
      digest: z.string(),
      decision: z.string(),
      by: z.array(z.string()),
      at: z.string(),
      usedAt: z.string().nullable(),
    }),
  ),
  risks: z.array(z.object({ id: z.string(), description: z.string(), level: z.enum(["low", "medium", "high"]) })),
  pending: pendingSchema.nullable(),
  observations: z.array(observationSchema), // newest last; the policy reads these
  consecutiveErrors: z.number().int().nonnegative(),
  /** The policy's errors in a row (a model outage): retried later, then a person is asked. */
  policyFailures: z.number().int().nonnegative().default(0),
  usage: z.object({
    modelCalls: z.number().int(),
    inputTokens: z.number().int(),
    outputTokens: z.number().int(),
    costUsd: z.number(),
  }),
  /** The run's budget: its limits (the agent's, overridden per field by the run's start, raised by extensions)
   *  and the tool calls made so far (tokens and cost are in `usage`). In the state, so a crash keeps the count. */
  budget: z.object({ limits: budgetLimitsSchema, toolCalls: z.number().int().nonnegative() }),
  output: jsonValue.optional(),
  /** Non-determinism recorded when first produced (clock readings, random ids), replayed on resume. */
  journal: z.record(z.string(), jsonValue),
  /** The rest of a model turn with several calls, taken one a step before the policy is asked again. */
  turn: turnSchema.nullable(),
  /** Only in a forked run: the source's decisions it replays while its state is the source's. */
  replay: replaySchema.nullable(),
});
export type RunState = z.infer<typeof runStateSchema>;

// ---- upgrades: ordered, each from version N to N+1; an old state is upgraded, never reinterpreted.

type AnyState = Record<string, unknown> & { schemaVersion?: unknown };

const UPGRADES: Record<number, (state: AnyState) => AnyState> = {
  // v1 kept facts as { key, value, source: "tool" | "model" | "human", at } and had no approvals,
  // risks or journal. The source becomes a kind with explicit authority.
  1: (v1) => {
    const kindBySource: Record<string, FactKind> = {
      tool: "observation",
      model: "inference",
      human: "decision",
      receipt: "receipt",
    };
    const facts = ((v1.facts as AnyState[] | undefined) ?? []).map((f, i) => ({
      id: String(f.id ?? `fact_v1_${i}`),
      key: String(f.key),
      value: f.value,
      kind: kindBySource[String(f.source)] ?? "inference",
      at: String(f.at ?? new Date(0).toISOString()),
      step: Number(f.step ?? 0),
      expiresAt: null,
      source: {},
    }));
    return {
      ...v1,
      schemaVersion: 2,
      facts,
      approvals: [],
      risks: [],
      observations: v1.observations ?? [],
      consecutiveErrors: 0,
      usage: v1.usage ?? { modelCalls: 0, inputTokens: 0, outputTokens: 0, costUsd: 0 },
      journal: {},
    };
  },
  // v3: a model turn may make several calls (the rest wait in `turn`); a fork replays its source's decisions (`replay`).
  2: (v2) => ({ ...v2, schemaVersion: 3, turn: null, replay: null }),
  // v4: a run has a budget (no limits for a run started before budgets) and counts its tool calls from here on.
  3: (v3) => ({ ...v3, schemaVersion: 4, budget: { limits: {}, toolCalls: 0 } }),
};

/** Parse a stored state of any known version into the current schema; malformed → INVALID_STATE. */
export function loadState(raw: unknown): RunState {
  let state = (typeof raw === "string" ? safeJson(raw) : raw) as AnyState;
  if (!state || typeof state !== "object") throw invalidState("state is not an object", {});
  let version = typeof state.schemaVersion === "number" ? state.schemaVersion : NaN;
  if (!Number.isInteger(version) || version < 1 || version > STATE_SCHEMA_VERSION) {
    throw invalidState(`unknown state schemaVersion ${String(state.schemaVersion)}`, {});
  }
  while (version < STATE_SCHEMA_VERSION) {
    state = UPGRADES[version](state);
    version += 1;
  }
  const parsed = runStateSchema.safeParse(state);
  if (!parsed.success) {
    const fieldErrors = fieldErrorsFromIssues(parsed.error.issues);
    // The paths go into the message too: it is what an operator reads on the run (run.error, the run page).
    const where = Object.entries(fieldErrors)
      .slice(0, 3)
      .map(([path, messages]) => `${path || "(root)"}: ${messages[0]}`);
    throw invalidState(`state does not match its schema (${where.join("; ")})`, fieldErrors);
  }
  return parsed.data;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw invalidState("state is not valid JSON", {});
  }
}

function invalidState(message: string, fieldErrors: Record<string, string[]>) {
  return new AppError("INVALID_STATE", {
    message,
    userMessage: "The run's saved state is malformed and was not loaded.",
    fieldErrors,
  });
}

export function initialState(opts: {
  agent: RunState["agent"];
  instructions: string;
  input: unknown;
  plan?: RunState["plan"];
  budget?: BudgetLimits;
}): RunState {
  return {
    schemaVersion: STATE_SCHEMA_VERSION,
    agent: opts.agent,
    instructions: [opts.instructions],
    input: opts.input,
    step: 0,
    plan: opts.plan ?? [],
    facts: [],
    approvals: [],
    risks: [],
    pending: null,
    observations: [],
    consecutiveErrors: 0,
    policyFailures: 0,
    usage: { modelCalls: 0, inputTokens: 0, outputTokens: 0, costUsd: 0 },
    budget: { limits: opts.budget ?? {}, toolCalls: 0 },
    journal: {},
    turn: null,
    replay: null,
  };
}

/** The state's JSON with its facts and journal emptied: the bounded part, stored whole with each checkpoint
 *  (the facts and journal only grow, and are stored once each: lib/store/state-entries.ts). */
export function stateHead(state: RunState): string {
  return JSON.stringify({ ...state, facts: [], journal: {} });
}

/** What the store holds of a state once it is written: all of its facts and journal entries (lib/store/state-entries.ts). */
export function storedEntriesOf(state: RunState): { facts: number; journal: number } {
  return { facts: state.facts.length, journal: Object.keys(state.journal).length };
}

/** The newest fact under a key (facts are append-only; a newer one supersedes). */
export function latestFact(state: { readonly facts: readonly Fact[] }, key: string): Fact | undefined {
  for (let i = state.facts.length - 1; i >= 0; i--) if (state.facts[i].key === key) return state.facts[i];
  return undefined;
}
