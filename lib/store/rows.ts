import type { NewIntent, NewPacket, StepCommit } from "@/lib/runtime/store";

// What the store's raw statements write, as column → value, whatever the database. postgres-sql.ts
// and sqlite-sql.ts render these rows as SQL; the columns and the rules (what is JSON, which times
// are the commit's) are written here once. Every DateTime is a bound JS Date, never a database
// default: Prisma fills @default(now()) itself, and SQLite's CURRENT_TIMESTAMP would store another
// format ("2026-01-02 03:04:05" instead of the adapter's "2026-01-02T03:04:05.678+00:00").

export type Row = Record<string, unknown>;

/** A raw statement for Prisma's $queryRawUnsafe/$executeRawUnsafe: SQL text with placeholders, and the bound values. */
export type Statement = { sql: string; values: unknown[] };

/** Runs a worker may pick up: these statuses always, these once their wakeAt is due (and the lease is free or expired). */
export const ACTIVE_STATUSES = ["QUEUED", "RUNNING"];
export const WAKEABLE_STATUSES = ["SLEEPING", "WAITING_EVENT", "WAITING_APPROVAL", "NEEDS_ATTENTION"];

export const json = (value: unknown) => JSON.stringify(value ?? null);

/** The run's new values, besides the seq increments, the wake check and updatedAt. */
export function runChanges(commit: StepCommit): Row {
  return {
    status: commit.status,
    state: json(commit.state),
    wakeAt: commit.wakeAt ?? null,
    waitingFor: commit.waitingFor ?? null,
    ...(commit.error !== undefined ? { error: commit.error } : {}),
    ...(commit.releaseLease ? { leaseOwner: null, leaseExpiresAt: null } : {}),
  };
}

/** The event type a run parks on, when the commit parks it on one (then a signal already here wakes it). */
export function parksOnEvent(commit: StepCommit): string | null {
  return commit.status === "WAITING_EVENT" && commit.waitingFor ? commit.waitingFor : null;
}

export function eventRows(commit: StepCommit, at: Date): Row[] {
  return commit.events.map((e) => ({ step: e.step, type: e.type, data: json(e.data), at }));
}

export function intentRow(i: NewIntent, at: Date): Row {
  return { id: i.id, runId: i.runId, step: i.step, tool: i.tool, args: json(i.args), decision: json(i.decision), semantics: i.semantics, status: "PENDING", createdAt: at };
}

export function intentResult(u: NonNullable<StepCommit["updateIntent"]>, at: Date): Row {
  return { status: u.status, attempt: u.attempt, result: json(u.result), completedAt: u.status !== "PENDING" ? at : null };
}

export function packetRow(p: NewPacket, at: Date): Row {
  return {
    id: p.id, runId: p.runId, step: p.step, kind: p.kind, tool: p.tool, args: json(p.args), digest: p.digest, status: "PENDING",
    requestedBy: p.requestedBy, packet: json(p.content), queue: p.queue, assignee: p.assignee, requiredApprovals: p.requiredApprovals,
    onExpire: p.onExpire, expiresAt: p.expiresAt, createdAt: at,
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
  };
  return Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined));
}
