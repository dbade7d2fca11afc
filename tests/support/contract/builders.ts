import { randomUUID } from "node:crypto";
import { impactRankOf } from "../../../lib/runtime/impact";
import { initialState, type RunState } from "../../../lib/runtime/state";
import type { NewPacket, NewRun, RuntimeStore } from "../../../lib/runtime/store";
import type { DecisionPacket, EffectIntent, Lease, PermissionRule, RunRecord } from "../../../lib/runtime/types";

// Plain objects for unit tests (buildX) and persisted ones for the store contract (createX).
// Every id is random, so test files can share one SQLite file and one Postgres database.

const id = (prefix: string) => `${prefix}_${randomUUID().replaceAll("-", "").slice(0, 16)}`;
const T0 = new Date("2025-01-01T12:00:00.000Z");

export function buildState(overrides: Partial<RunState> = {}): RunState {
  return {
    ...initialState({
      agent: { slug: "refunder", version: "1.0.0", instructionsHash: "abc123" },
      instructions: "Refund the order if it is eligible.",
      input: { orderId: "o-1" },
      plan: [{ id: "look-up", title: "Look up the order", status: "pending" }],
    }),
    ...overrides,
  };
}

export function buildRun(overrides: Partial<RunRecord> = {}): RunRecord {
  return {
    id: id("run"),
    workspaceId: "default",
    agentSlug: "refunder",
    agentVersion: "1.0.0",
    status: "RUNNING",
    input: { orderId: "o-1" },
    state: buildState(),
    storedEntries: { facts: 0, journal: 0 },
    stateSeq: 1,
    eventSeq: 1,
    idempotencyKey: null,
    startedBy: null,
    leaseOwner: null,
    leaseEpoch: 0,
    leaseExpiresAt: null,
    wakeAt: null,
    waitingFor: null,
    error: null,
    parentRunId: null,
    spawnedByRunId: null,
    spawnedAtStep: null,
    compactedAt: null,
    createdAt: T0,
    updatedAt: T0,
    ...overrides,
  };
}

export function buildIntent(overrides: Partial<EffectIntent> = {}): EffectIntent {
  return {
    id: id("op"),
    runId: "run_x",
    step: 1,
    tool: "payments.refund",
    args: { orderId: "o-1", amountCents: 2400 },
    semantics: "idempotent",
    status: "PENDING",
    attempt: 1,
    result: null,
    createdAt: T0,
    completedAt: null,
    ...overrides,
  };
}

export function buildPacket(overrides: Partial<DecisionPacket> = {}): DecisionPacket {
  return {
    id: id("pkt"),
    workspaceId: "default",
    runId: "run_x",
    step: 1,
    kind: "APPROVAL",
    tool: "payments.refund",
    args: { orderId: "o-1", amountCents: 2400 },
    digest: "d".repeat(64),
    status: "PENDING",
    requestedBy: "agent:refunder",
    content: {
      impact: "refunds $24.00 to card •4242",
      evidence: [],
      options: ["approve", "edit", "reject", "redirect"],
    },
    queue: "default",
    assignee: null,
    requiredApprovals: 1,
    approvers: [],
    onExpire: "reject",
    expiresAt: null,
    decision: null,
    decidedBy: null,
    decidedAt: null,
    usedAt: null,
    version: 0,
    createdAt: T0,
    ...overrides,
  };
}

export function buildRule(overrides: Partial<PermissionRule> = {}): PermissionRule {
  return {
    id: id("perm"),
    agent: "refunder",
    tool: "payments.refund",
    step: "*",
    effect: "allow",
    conditions: [],
    capabilities: ["read", "draft", "approve", "execute"],
    freshEvidence: false,
    approvals: 1,
    onExpire: "reject",
    queue: "default",
    ttlSeconds: null,
    version: 1,
    updatedBy: "admin@test",
    updatedAt: T0,
    ...overrides,
  };
}

export function buildNewRun(overrides: Partial<NewRun> = {}): NewRun {
  const state =
    overrides.state ??
    buildState(
      overrides.agentSlug ? { agent: { slug: overrides.agentSlug, version: "1.0.0", instructionsHash: "abc123" } } : {},
    );
  return {
    id: id("run"),
    workspaceId: "default",
    agentSlug: state.agent.slug,
    agentVersion: state.agent.version,
    input: state.input,
    state,
    idempotencyKey: null,
    startedBy: null,
    parentRunId: null,
    spawnedByRunId: null,
    spawnedAtStep: null,
    events: [{ type: "run.created", step: 0, data: { agent: state.agent.slug } }],
    ...overrides,
  };
}

/** A packet as the engine hands it to the store: with the impact rank it computed. */
export function buildNewPacket(runId: string, overrides: Partial<NewPacket> = {}): NewPacket & { impactRank: number } {
  const {
    status: _s,
    approvers: _a,
    decision: _d,
    decidedBy: _b,
    decidedAt: _t,
    usedAt: _u,
    version: _v,
    createdAt: _c,
    ...packet
  } = buildPacket({ runId });
  const built: NewPacket = { ...packet, traits: { capability: "execute", semantics: "idempotent" }, ...overrides };
  return { ...built, impactRank: impactRankOf(built) };
}

/** A persisted, queued run. */
export async function createRun(store: RuntimeStore, overrides: Partial<NewRun> = {}): Promise<RunRecord> {
  const { run } = await store.createRun(buildNewRun(overrides));
  return run;
}

/** A persisted run held by `owner` under a fresh lease. */
export async function createClaimedRun(
  store: RuntimeStore,
  opts: { owner?: string; now?: Date; leaseMs?: number; run?: Partial<NewRun> } = {},
): Promise<{ run: RunRecord; lease: Lease }> {
  const created = await createRun(store, opts.run);
  // A run is claimable from its runnableAt on (its creation): a claim "before" it would find nothing.
  const now = opts.now && opts.now < created.createdAt ? created.createdAt : (opts.now ?? new Date());
  const claim = await store.claimRun({
    owner: opts.owner ?? id("worker"),
    now,
    leaseMs: opts.leaseMs ?? 60_000,
    runId: created.id,
  });
  if (!claim) throw new Error(`could not claim the fresh run ${created.id}`);
  return claim;
}
