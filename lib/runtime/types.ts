import type { z } from "zod";
import type { Action, BudgetLimits, Fact, Observation, RunState } from "./state";

// ---- runs

export const RUN_STATUSES = [
  "QUEUED",
  "RUNNING",
  "WAITING_APPROVAL",
  "WAITING_EVENT",
  "SLEEPING",
  "NEEDS_ATTENTION",
  "COMPLETED",
  "FAILED",
  "CANCELLED",
] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
export const TERMINAL_STATUSES: readonly RunStatus[] = ["COMPLETED", "FAILED", "CANCELLED"];

/** How many of a state's facts and journal entries are stored as their own rows (lib/store/state-entries.ts):
 *  a commit writes only the ones added after these. */
export type StoredEntries = { facts: number; journal: number };

export type RunRecord = {
  id: string;
  /** The workspace that owns the run: a step reads that workspace's rules, tools and queues. */
  workspaceId: string;
  agentSlug: string;
  agentVersion: string;
  status: RunStatus;
  input: unknown;
  state: RunState;
  /** How much of `state` is stored as entries; the store's bookkeeping, handed back with the next write. */
  storedEntries: StoredEntries;
  stateSeq: number;
  eventSeq: number;
  idempotencyKey: string | null;
  startedBy: string | null;
  leaseOwner: string | null;
  leaseEpoch: number;
  leaseExpiresAt: Date | null;
  wakeAt: Date | null;
  waitingFor: string | null;
  error: string | null;
  parentRunId: string | null;
  /** A child run: the run whose step started it (children.ts), and that step; null for any other run. */
  spawnedByRunId: string | null;
  spawnedAtStep: number | null;
  /** When retention compacted the finished run (its intermediate checkpoints and non-audit events are gone). */
  compactedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
  /** Set only in lists, when the stored state could not be loaded: the run is listed with an empty
   *  state instead of hiding it or failing the whole list (opening it reports INVALID_STATE). */
  stateError?: string;
};

/** A worker's claim on a run. Every write made under it is fenced by the epoch. */
export type Lease = { runId: string; owner: string; epoch: number; expiresAt: Date };

// ---- trace

export type TraceEventInput = { type: string; step: number; data: Record<string, unknown> };
export type TraceEvent = TraceEventInput & { runId: string; seq: number; at: Date };

// ---- effects

export const EFFECT_SEMANTICS = ["pure-read", "idempotent", "reconcilable", "unsafe"] as const;
export type EffectSemantics = (typeof EFFECT_SEMANTICS)[number];
export const CAPABILITIES = ["read", "draft", "approve", "execute"] as const;
export type Capability = (typeof CAPABILITIES)[number];

export type IntentStatus = "PENDING" | "SUCCEEDED" | "FAILED" | "UNKNOWN" | "RESOLVED";
export type EffectIntent = {
  id: string; // operation id == idempotency key
  runId: string;
  step: number;
  tool: string;
  args: unknown;
  semantics: EffectSemantics;
  status: IntentStatus;
  attempt: number;
  result: unknown;
  createdAt: Date;
  completedAt: Date | null;
};

/** How a tool call failed. `outcome` says whether the world may have changed anyway. */
export type ToolErrorClass = "rejected" | "timeout" | "network" | "server" | "invalid_output" | "internal";
export class ToolError extends Error {
  constructor(
    readonly errorClass: ToolErrorClass,
    message: string,
    readonly outcome: "not_applied" | "unknown" = errorClass === "rejected" ? "not_applied" : "unknown",
    readonly details?: unknown,
  ) {
    super(message);
    this.name = "ToolError";
  }
}

export type ToolCallContext = {
  runId: string;
  step: number;
  operationId: string;
  idempotencyKey: string;
  attempt: number;
};

/** A tool: what it does, what it may change and how a repeat is made safe (docs/design.md). The one
 *  contract for every tool: the built-in ones, an admin's registered HTTP and MCP tools, and a team's
 *  (lib/sdk's defineTool checks this same shape when it is defined).
 *  The `any` defaults let one registry hold tools of different argument types; each tool's own
 *  zod schema is what the engine checks arguments against. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type ToolDefinition<I = any, O = any> = {
  /** Namespaced: "crm.get_customer". `http.*` and `mcp.*` belong to tools an admin registers. */
  name: string;
  /** What it does, for the model and the console. */
  description: string;
  /** read | draft | approve | execute: permissions grant each separately. */
  capability: Capability;
  /** pure-read | idempotent (gets a key) | reconcilable (has a lookup) | unsafe (neither: never repeated on its own). */
  semantics: EffectSemantics;
  input: z.ZodType<I>;
  output?: z.ZodType<O>;
  /** One human sentence for the reviewer: "refunds $240.00 to card •4242". */
  impact: (args: I) => string;
  /** Reads: how long an observation from this tool stays fresh. */
  freshnessMs?: number;
  /** Performs the call. ctx.idempotencyKey is stable across retries of this call: pass it on. */
  run: (args: I, ctx: ToolCallContext) => Promise<O>;
  /** reconcilable only: the result of an earlier attempt of ctx.operationId, or null when it never happened. */
  lookup?: (args: I, ctx: ToolCallContext) => Promise<O | null>;
  /** The external system's id for what it did (payment id, message id…), kept with the fact. */
  receiptId?: (result: O) => string | undefined;
  /** Registered tools: a fingerprint of the registration (what it calls, how); an approval is bound to it. */
  registration?: string;
  /** The arguments a reviewer may edit; unset, any. Leave money and recipients out. */
  editableFields?: readonly string[];
  /** Tools that change something: the entry its effect shows up as in the world's ledger (one per effect,
   *  under the call's operation id), e.g. { system: "crm", action: "update" }. The journey evals count,
   *  compare and time out effects by it (lib/evals/README.md). */
  ledger?: LedgerEffect;
  /** A tool Tether never runs (an open gate's requested action, lib/agents/external-gate.ts): a person decides
   *  under these terms, then the caller performs it and reports the outcome as a signal. */
  external?: ExternalExecution;
};

/** How a caller-executed action is asked for and settled. */
export type ExternalExecution = {
  /** The approval terms the caller asked for (merged with a rule's in approvalTerms: the stricter wins). */
  terms: ApprovalTerms;
  /** The caller's evidence: facts of kind observation, source `by: "external…"`, cited by the packet. */
  evidence: Array<{ key: string; value: unknown; source?: string; at?: string }>;
  /** The signal type the caller's outcome report arrives as: { status: "happened" | "failed" | "not_done", receipt?, detail? }. */
  outcomeSignal: string;
};

/** Who decides a gate and how long they have: a rule's (queue, approvals, ttlSeconds, onExpire) or a caller's. */
export type ApprovalTerms = { queue: string; approvals: number; ttlSeconds: number | null; onExpire: string };

/** An effect as the world's ledger records it: "payments" · "refund". */
export type LedgerEffect = { system: string; action: string };

// ---- agents

export type ModelUsage = { inputTokens?: number; outputTokens?: number; costUsd?: number };

/** What a policy may decide to do next. */
export type Decision =
  | ({ kind: "call" } & Action)
  | { kind: "sleep"; durationMs: number; reason?: string }
  | { kind: "wait_event"; eventType: string; timeoutMs?: number; reason?: string }
  | {
      kind: "record";
      facts: Array<Pick<Fact, "key" | "value"> & { kind?: "inference" }>;
      plan?: RunState["plan"];
      reason?: string;
    }
  | { kind: "complete"; output: unknown }
  | { kind: "fail"; reason: string }
  /** Start a run of another agent and wait for it (children.ts): its outcome comes back as a receipt fact `child:<runId>`. */
  | { kind: "spawn"; agent: string; input: unknown; reason?: string };

export type PolicyInput = {
  /** The run being decided: for live output only (a model step's tokens are shown under it); not replayed. */
  runId?: string;
  state: RunState;
  /** The instructions in force: the agent's, then every redirect a person gave. */
  instructions: string[];
  lastObservation: Observation | undefined;
  /** The tools it may call: its own and those granted to it by name (registered HTTP and MCP tools). */
  tools: Array<Pick<ToolDefinition, "name" | "description" | "capability" | "semantics" | "input">>;
  /** Recorded clock: the same value on replay of the same step. */
  now: () => Date;
  /** Recorded random id: the same value on replay of the same step. */
  randomId: () => string;
  /** The agents it may start a child run of (AgentDefinition.spawns), with their input schemas; absent: none. */
  children?: Array<{ slug: string; description: string; input: z.ZodType }>;
};

export type PolicyOutput = {
  decision: Decision;
  /** The rest of the same answer (a model's several tool calls in one turn): taken in order in the next steps,
   *  each through the normal path, without asking again; dropped once one before them does not succeed (turns.ts).
   *  Only the last may be other than a call. */
  queued?: Decision[];
  usage?: ModelUsage;
  raw?: unknown;
};

/** An agent's brain: scripted (deterministic) or a model. */
export type Policy = { decide: (input: PolicyInput) => Promise<PolicyOutput> };

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- one registry holds agents of different input types
export type AgentDefinition<I = any> = {
  slug: string;
  /** What a run pins: derived from the definition by defineAgent (agent-version.ts); opaque to the engine. */
  version: string;
  /** A person's name for the version ("2", "spring-prices"), shown beside it; identifies nothing. */
  label?: string;
  name: string;
  description: string;
  instructions: string;
  input: z.ZodType<I>;
  tools: string[];
  plan?: RunState["plan"];
  policy: Policy;
  /** A step budget: a run that exceeds it fails instead of looping forever. */
  maxSteps?: number;
  /** Tools that exist only in a run of this agent, made from its input (an open gate's requested action); they come before every other tool of that name. */
  runTools?: (input: I) => ToolDefinition[];
  /** Machinery, not started by hand (the open gate's agent): left out of start-a-run lists; its runs and packets show as any other. */
  internal?: boolean;
  /** A spending budget per run (a run's start may override each field): reaching it parks the run for a person (budget.ts). */
  budget?: BudgetLimits;
  /** The agents whose runs this agent's steps may start and wait for (a `spawn` decision, children.ts); unset: none. */
  spawns?: string[];
};

// ---- permissions

export const PERMISSION_EFFECTS = ["deny", "allow", "require_approval"] as const;
export type PermissionEffect = (typeof PERMISSION_EFFECTS)[number];
/** What a condition may do when it holds: make its rule stricter (deny, require_approval; "allow" relaxes nothing),
 *  or — on a rule that requires approval — skip the gate ("skip_gate": an auto-approval predicate, permissions.ts). */
export const CONDITION_EFFECTS = [...PERMISSION_EFFECTS, "skip_gate"] as const;
export type ConditionEffect = (typeof CONDITION_EFFECTS)[number];

/**
 * A condition's value may name a value of the run instead of a constant, resolved when the rule is
 * evaluated: `{ $input: "orderId" }` (a dot path into the run's input), or `{ $fact: "order", path:
 * "customerEmail", tool: "orders.get" }` (the newest fact under a key that an outside system gave — an
 * observation or a receipt, never an inference — optionally only one the named tool produced). A reference
 * that resolves to nothing makes its condition hold: fail closed.
 */
export type PermissionValueRef = { $input: string } | { $fact: string; path?: string; tool?: string };

export type PermissionCondition = {
  path: string; // dot path into the tool arguments
  op: "gt" | "gte" | "lt" | "lte" | "eq" | "neq" | "in";
  value: unknown; // a constant, or a PermissionValueRef
  effect: ConditionEffect; // applied when the condition holds
};

export type PermissionRule = {
  id: string;
  agent: string; // slug or "*"
  tool: string; // name or "*"
  step: string; // plan step or "*"
  effect: PermissionEffect;
  conditions: PermissionCondition[];
  /** What the rule grants the agent to do with the tool: a call whose tool's capability is not listed is denied. */
  capabilities: Capability[];
  /** A material call (not a pure read, not a read capability) resting only on inferences or expired observations asks a person. */
  freshEvidence: boolean;
  approvals: number;
  onExpire: string; // "reject" | "escalate:<queue>"
  queue: string;
  ttlSeconds: number | null;
  version: number;
  updatedBy: string;
  updatedAt: Date;
};

// ---- gates

/** BUDGET: the run reached its budget (budget.ts); approve or edit extends it, reject stops the run. */
/** VERSION: the run's agent version is gone; approve upgrades it to the newest loaded, reject cancels it. */
export type PacketKind = "APPROVAL" | "UNKNOWN_OUTCOME" | "BUDGET" | "VERSION";
/** CONFIRMED, RETRIED and SKIPPED close an unknown-outcome packet; the others an approval (REDIRECTED and EXPIRED both). */
export type PacketStatus =
  | "PENDING"
  | "APPROVED"
  | "EDITED"
  | "REJECTED"
  | "REDIRECTED"
  | "EXPIRED"
  | "STALE"
  | "CONFIRMED"
  | "RETRIED"
  | "SKIPPED";
export const DECIDED_PACKET_STATUSES = [
  "APPROVED",
  "EDITED",
  "REJECTED",
  "REDIRECTED",
  "EXPIRED",
  "STALE",
  "CONFIRMED",
  "RETRIED",
  "SKIPPED",
] as const satisfies readonly PacketStatus[];
export type DecisionKind = "approve" | "edit" | "reject" | "redirect" | InDoubtDecisionKind;
/** The words for an effect whose outcome is unknown: each says what happened and what the run does next. */
export type InDoubtDecisionKind = "happened" | "retry" | "skip";

export const APPROVAL_OPTIONS: readonly DecisionKind[] = ["approve", "edit", "reject", "redirect"];
export const IN_DOUBT_OPTIONS: readonly DecisionKind[] = ["happened", "retry", "skip", "redirect"];

/** What a reviewer may answer. By kind for unknown outcomes: packets stored before the in-doubt words offered approve/reject. */
export function decisionOptions(packet: {
  kind: PacketKind;
  content: { options: DecisionKind[] };
}): readonly DecisionKind[] {
  return packet.kind === "UNKNOWN_OUTCOME" ? IN_DOUBT_OPTIONS : packet.content.options;
}

export type PacketContent = {
  impact: string;
  reasoning?: string;
  uncertainty?: string;
  evidence: Array<{
    key: string;
    value: unknown;
    kind: Fact["kind"];
    at: string;
    ageMs: number;
    source: Fact["source"];
  }>;
  options: DecisionKind[];
  /** Filled when the evidence changed before the approved action ran. */
  staleChanges?: Array<{ key: string; before: unknown; after: unknown }>;
  /** Where the packet was escalated from. */
  escalatedFrom?: string;
  /** The rule and tool registration the approval is asked under (part of the digest); absent on older packets. */
  binding?: { rule: string | null; tool: string | null };
  /** Why a person is asked: the permission check's reason (the rule, the condition, weak evidence); absent on older packets. */
  why?: string;
};

export type PacketDecision = {
  decision: DecisionKind;
  args?: unknown;
  reason?: string;
  instruction?: string;
  /** "happened": the outside system's id for what it did (e.g. the deploy id), when the person has it. */
  receipt?: string;
  note?: string;
  digest?: string; // the digest of the action a person approved
};

export type DecisionPacket = {
  id: string;
  /** Its run's workspace. */
  workspaceId: string;
  runId: string;
  step: number;
  kind: PacketKind;
  tool: string;
  args: unknown;
  digest: string;
  status: PacketStatus;
  requestedBy: string;
  content: PacketContent;
  queue: string;
  assignee: string | null;
  requiredApprovals: number;
  approvers: string[];
  onExpire: string;
  expiresAt: Date | null;
  decision: PacketDecision | null;
  decidedBy: string | null;
  decidedAt: Date | null;
  usedAt: Date | null;
  version: number;
  createdAt: Date;
};

export type SignalRecord = {
  id: string;
  runId: string;
  type: string;
  dedupKey: string;
  payload: unknown;
  receivedAt: Date;
  consumedAt: Date | null;
};

// ---- injected dependencies

export type Clock = { now: () => Date };
export type IdSource = { id: (prefix: string) => string };
export type Logger = {
  info: (msg: string, data?: object) => void;
  warn: (msg: string, data?: object) => void;
  error: (msg: string, data?: object) => void;
};
