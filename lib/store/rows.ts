import type { NewIntent, NewRun, StepCommit } from "@/lib/runtime/store";
import { json } from "./records";
import type { SplitState } from "./state-entries";

// What the store's raw statements write, as column → value, whatever the database. The capability
// files (steps.ts, runs.ts) render these rows in each database's SQL (postgres-sql.ts, sqlite-sql.ts);
// the columns and the rules (what is JSON, which times are the commit's) are written here once. Every DateTime is a bound JS Date, never a database
// default: Prisma fills @default(now()) itself, and SQLite's CURRENT_TIMESTAMP would store another
// format ("2026-01-02 03:04:05" instead of the adapter's "2026-01-02T03:04:05.678+00:00").

export type Row = Record<string, unknown>;

/** A raw statement for Prisma's $queryRawUnsafe/$executeRawUnsafe: SQL text with placeholders, and the bound values. */
export type Statement = { sql: string; values: unknown[] };

/** Runs a worker may pick up: these statuses always, these once their wakeAt is due (and the lease is free or expired). */
export const ACTIVE_STATUSES = ["QUEUED", "RUNNING"];
export const WAKEABLE_STATUSES = ["SLEEPING", "WAITING_EVENT", "WAITING_APPROVAL", "NEEDS_ATTENTION"];

/**
 * Run.runnableAt of a run nobody holds: at once for work to do, its timer when parked (null: only a
 * person or an event moves it), null when it ended. A held run's is its lease's expiry (leases.ts).
 */
export function runnableAtOf(status: string, wakeAt: Date | null, at: Date): Date | null {
  if (ACTIVE_STATUSES.includes(status)) return at;
  return WAKEABLE_STATUSES.includes(status) ? wakeAt : null;
}

/** The run's new values, besides the seq increments, the wake check and updatedAt (`head`: the state's
 *  head, state-entries.ts). A commit that keeps the lease leaves runnableAt at the lease's expiry. */
export function runChanges(commit: StepCommit, at: Date, head: string): Row {
  const wakeAt = commit.wakeAt ?? null;
  return {
    status: commit.status,
    state: head,
    wakeAt,
    waitingFor: commit.waitingFor ?? null,
    ...(commit.error !== undefined ? { error: commit.error } : {}),
    ...(commit.agentVersion !== undefined ? { agentVersion: commit.agentVersion } : {}),
    ...(commit.releaseLease
      ? { leaseOwner: null, leaseExpiresAt: null, runnableAt: runnableAtOf(commit.status, wakeAt, at) }
      : {}),
  };
}

/** A wake-up to send after a commit that gave the run back: now when a signal woke it, else its timer. */
export function wakeupOf(commit: StepCommit, woken: boolean, at: Date): { runId: string; at?: Date } | null {
  if (!commit.releaseLease) return null;
  if (woken) return { runId: commit.lease.runId };
  const runnableAt = runnableAtOf(commit.status, commit.wakeAt ?? null, at);
  return runnableAt ? { runId: commit.lease.runId, at: runnableAt } : null;
}

/** The event type a run parks on, when the commit parks it on one (then a signal already here wakes it). */
export function parksOnEvent(commit: StepCommit): string | null {
  return commit.status === "WAITING_EVENT" && commit.waitingFor ? commit.waitingFor : null;
}

/** A new run's row (`state`: its head and entries, state-entries.ts); createdAt and updatedAt are the caller's. */
export function runRow(run: NewRun, state: SplitState, at: Date) {
  return {
    id: run.id,
    agentSlug: run.agentSlug,
    agentVersion: run.agentVersion,
    status: "QUEUED",
    input: json(run.input),
    state: state.head,
    stateSeq: 1,
    eventSeq: run.events.length,
    entrySeq: state.entries.length,
    runnableAt: at,
    idempotencyKey: run.idempotencyKey,
    startedBy: run.startedBy,
    parentRunId: run.parentRunId,
    workspaceId: run.workspaceId,
    spawnedByRunId: run.spawnedByRunId ?? null,
    spawnedAtStep: run.spawnedAtStep ?? null,
  };
}

export function eventRows(commit: StepCommit, at: Date): Row[] {
  return commit.events.map((e) => ({ step: e.step, type: e.type, data: json(e.data), at }));
}

export function intentRow(i: NewIntent, at: Date): Row {
  return {
    id: i.id,
    runId: i.runId,
    step: i.step,
    tool: i.tool,
    args: json(i.args),
    decision: json(i.decision),
    semantics: i.semantics,
    status: "PENDING",
    createdAt: at,
  };
}

export function intentResult(u: NonNullable<StepCommit["updateIntent"]>, at: Date): Row {
  return {
    status: u.status,
    attempt: u.attempt,
    result: json(u.result),
    completedAt: u.status !== "PENDING" ? at : null,
  };
}

export function packetRow(p: NonNullable<StepCommit["createPacket"]>, at: Date): Row {
  return {
    id: p.id,
    runId: p.runId,
    step: p.step,
    kind: p.kind,
    tool: p.tool,
    args: json(p.args),
    digest: p.digest,
    status: "PENDING",
    requestedBy: p.requestedBy,
    packet: json(p.content),
    queue: p.queue,
    assignee: p.assignee,
    requiredApprovals: p.requiredApprovals,
    onExpire: p.onExpire,
    expiresAt: p.expiresAt,
    createdAt: at,
    capability: p.traits?.capability ?? null,
    impactRank: p.impactRank,
    changedAt: new Date(),
  };
}

/** A packet's changed fields (the version increment aside); fields left undefined are left alone. */
export function packetChanges(u: NonNullable<StepCommit["updatePacket"]>, at: Date): Row {
  const changes: Row = {
    status: u.status,
    usedAt: u.usedAt,
    queue: u.queue,
    expiresAt: u.expiresAt,
    onExpire: u.onExpire,
    packet: u.content ? json(u.content) : undefined,
    decision: u.decision ? json(u.decision) : undefined,
    decidedBy: u.decidedBy,
    decidedAt: u.decision ? at : undefined,
    // Wall clock, not the engine's (a test clock may stand still): the inbox's change feed reads it.
    changedAt: new Date(),
  };
  return Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined));
}
