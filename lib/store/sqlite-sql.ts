import type { StepCommit } from "@/lib/runtime/store";
import {
  ACTIVE_STATUSES,
  WAKEABLE_STATUSES,
  eventRows,
  packetChanges,
  runChanges,
  type Row,
  type Statement,
} from "./rows";
import type { NewEntry } from "./state-entries";

// SQLite statements for a step's commit, run one after another inside Prisma's interactive
// transaction (prisma-store.ts). Why raw: SQLite is in-process, so there are no round trips to save,
// but Prisma compiles every model query with its WASM query compiler on every call (no plan cache);
// raw statements halve the cost of a commit (measured 5.3 → 2.6 ms for a step with 3 events). The
// transaction is still Prisma's, and SQLite's single writer serializes it: none of the concurrency
// care of postgres-sql.ts is needed here.
// DateTime: @prisma/adapter-better-sqlite3 binds a Date parameter of a raw query exactly as it binds
// a model query's (ISO text with "+00:00"), so Prisma's own reads parse what is written here
// (checked on stored rows). Nothing from the caller is spliced into the SQL text: values are bound.

const columns = (row: Row) =>
  Object.keys(row)
    .map((c) => `"${c}"`)
    .join(", ");
const placeholders = (n: number) => Array.from({ length: n }, () => "?").join(", ");
const assignments = (row: Row) =>
  Object.keys(row)
    .map((c) => `"${c}" = ?`)
    .join(", ");

/** The fenced update of the run: no row back means the lease no longer holds, or the permission epoch
 *  the step checked has moved (nothing was written). */
export function head(
  commit: StepCommit,
  state: { head: string; entries: NewEntry[] },
  at: Date,
  updatedAt: Date,
): Statement {
  const changes = runChanges(commit, at, state.head);
  const { lease } = commit;
  return {
    sql: `UPDATE "Run" SET ${assignments(changes)}, "stateSeq" = "stateSeq" + 1, "eventSeq" = "eventSeq" + ?, "entrySeq" = "entrySeq" + ?, "updatedAt" = ?
      WHERE "id" = ? AND "leaseOwner" = ? AND "leaseEpoch" = ?
        ${commit.permissionEpoch !== undefined ? `AND COALESCE((SELECT "value" FROM "Epoch" WHERE "name" = 'permissions'), 0) = ?` : ""}
      RETURNING "stateSeq", "eventSeq", "entrySeq"`,
    values: [
      ...Object.values(changes),
      commit.events.length,
      state.entries.length,
      updatedAt,
      lease.runId,
      lease.owner,
      lease.epoch,
      ...(commit.permissionEpoch !== undefined ? [commit.permissionEpoch] : []),
    ],
  };
}

/** The checkpoint of the state just written, copied from the run's row (its new stateSeq, head and entrySeq). */
export function checkpoint(commit: StepCommit, at: Date): Statement {
  return {
    sql: `INSERT INTO "Checkpoint" ("runId", "seq", "step", "state", "entrySeq", "createdAt") SELECT "id", "stateSeq", ?, "state", "entrySeq", ? FROM "Run" WHERE "id" = ?`,
    values: [commit.state.step, at, commit.lease.runId],
  };
}

/** The state's new entries from `firstSeq` on (state-entries.ts), a few hundred rows a statement. */
export function entries(runId: string, list: NewEntry[], firstSeq: number): Statement[] {
  return chunkedInsert(
    "StateEntry",
    list.map((e, i) => ({ runId, seq: firstSeq + i, kind: e.kind, key: e.key, value: e.value })),
  );
}

/** The commit's events from `firstSeq` on, a few hundred rows a statement (SQLite caps bound values). */
export function events(commit: StepCommit, firstSeq: number, at: Date): Statement[] {
  return chunkedInsert(
    "TraceEvent",
    eventRows(commit, at).map((r, i) => ({ runId: commit.lease.runId, seq: firstSeq + i, ...r })),
  );
}

/** Rows of one shape, a few hundred a statement (SQLite caps bound values). */
function chunkedInsert(table: string, rows: Row[]): Statement[] {
  const statements: Statement[] = [];
  for (let i = 0; i < rows.length; i += 500) {
    const chunk = rows.slice(i, i + 500);
    statements.push({
      sql: `INSERT INTO "${table}" (${columns(chunk[0])}) VALUES ${chunk.map((r) => `(${placeholders(Object.keys(r).length)})`).join(", ")}`,
      values: chunk.flatMap((r) => Object.values(r)),
    });
  }
  return statements;
}

export function insert(table: string, row: Row): Statement {
  return {
    sql: `INSERT INTO "${table}" (${columns(row)}) VALUES (${placeholders(Object.keys(row).length)})`,
    values: Object.values(row),
  };
}

export function updateById(table: string, id: string, changes: Row): Statement {
  return {
    sql: `UPDATE "${table}" SET ${assignments(changes)} WHERE "id" = ?`,
    values: [...Object.values(changes), id],
  };
}

/** Compare-and-set on the packet's version: 0 rows changed means it lost (the caller rolls back). */
export function packetCas(u: NonNullable<StepCommit["updatePacket"]>, at: Date): Statement {
  const changes = packetChanges(u, at);
  return {
    sql: `UPDATE "DecisionPacket" SET "version" = "version" + 1${Object.keys(changes).length ? `, ${assignments(changes)}` : ""} WHERE "id" = ? AND "version" = ?`,
    values: [...Object.values(changes), u.id, u.version],
  };
}

export function consumeSignals(ids: string[], at: Date): Statement {
  return {
    sql: `UPDATE "Signal" SET "consumedAt" = ? WHERE "id" IN (${placeholders(ids.length)}) AND "consumedAt" IS NULL`,
    values: [at, ...ids],
  };
}

/** A run parking on an event that is already here wakes at once (signals consumed by this commit no longer count). */
export function wakeIfSignalWaiting(runId: string, type: string, at: Date, updatedAt: Date): Statement {
  return {
    sql: `UPDATE "Run" SET "wakeAt" = ?, "runnableAt" = ?, "updatedAt" = ? WHERE "id" = ?
      AND EXISTS (SELECT 1 FROM "Signal" WHERE "runId" = ? AND "type" = ? AND "consumedAt" IS NULL)`,
    values: [at, at, updatedAt, runId, runId, type],
  };
}

/** Wake another run parked on this event type (StepCommit.wakeRun). */
export function wakeWaiting(runId: string, type: string, at: Date, updatedAt: Date): Statement {
  return {
    sql: `UPDATE "Run" SET "wakeAt" = ?, "runnableAt" = ?, "updatedAt" = ? WHERE "id" = ? AND "status" = 'WAITING_EVENT' AND "waitingFor" = ?`,
    values: [at, at, updatedAt, runId, type],
  };
}

// ---- leases (see postgres-sql.ts for the same statements on Postgres; here one writer at a time)

const inList = (values: readonly string[]) => `(${placeholders(values.length)})`;

/** Claim up to `limit` runnable runs, oldest runnableAt first; returns the ids leased (one statement). */
export function claimRuns(opts: {
  owner: string;
  now: Date;
  expiresAt: Date;
  limit: number;
  runId?: string;
  exclude?: string[];
  updatedAt: Date;
}): Statement {
  const { now } = opts;
  const exclude = opts.runId ? [] : (opts.exclude ?? []);
  return {
    sql: `UPDATE "Run" SET "leaseOwner" = ?, "leaseEpoch" = "leaseEpoch" + 1, "leaseExpiresAt" = ?, "runnableAt" = ?, "updatedAt" = ?
      WHERE "id" IN (
        SELECT "id" FROM "Run"
        WHERE "runnableAt" <= ? AND ("leaseOwner" IS NULL OR "leaseExpiresAt" < ?)
          AND ("status" IN ${inList(ACTIVE_STATUSES)} OR ("status" IN ${inList(WAKEABLE_STATUSES)} AND "wakeAt" <= ?))
          ${opts.runId ? `AND "id" = ?` : ""}
          ${exclude.length ? `AND "id" NOT IN ${inList(exclude)}` : ""}
        ORDER BY "runnableAt" ASC LIMIT ?)
      RETURNING "id"`,
    values: [
      opts.owner,
      opts.expiresAt,
      opts.expiresAt,
      opts.updatedAt,
      now,
      now,
      ...ACTIVE_STATUSES,
      ...WAKEABLE_STATUSES,
      now,
      ...(opts.runId ? [opts.runId] : []),
      ...exclude,
      opts.limit,
    ],
  };
}

/** One heartbeat for a batch of leases of one owner; returns the ids that still held. */
export function renewLeases(
  owner: string,
  leases: Array<StepCommit["lease"]>,
  expiresAt: Date,
  updatedAt: Date,
): Statement {
  return {
    sql: `UPDATE "Run" SET "leaseExpiresAt" = ?, "runnableAt" = ?, "updatedAt" = ?
      WHERE "leaseOwner" = ? AND ("id", "leaseEpoch") IN (VALUES ${leases.map(() => "(?, ?)").join(", ")}) RETURNING "id"`,
    values: [expiresAt, expiresAt, updatedAt, owner, ...leases.flatMap((l) => [l.runId, l.epoch])],
  };
}

/** Give a run back: runnable at once if it still has work, else at its timer. Returns its status. */
export function releaseLease(lease: StepCommit["lease"], at: Date, updatedAt: Date): Statement {
  return {
    sql: `UPDATE "Run" SET "leaseOwner" = NULL, "leaseExpiresAt" = NULL, "updatedAt" = ?,
        "runnableAt" = CASE WHEN "status" IN ${inList(ACTIVE_STATUSES)} THEN ? WHEN "status" IN ${inList(WAKEABLE_STATUSES)} THEN "wakeAt" ELSE NULL END
      WHERE "id" = ? AND "leaseOwner" = ? AND "leaseEpoch" = ? RETURNING "status"`,
    values: [updatedAt, ...ACTIVE_STATUSES, at, ...WAKEABLE_STATUSES, lease.runId, lease.owner, lease.epoch],
  };
}

/** Does the lease still hold? (Only asked after a commit wrote nothing, to say why.) */
export function leaseHeld(lease: StepCommit["lease"]): Statement {
  return {
    sql: `SELECT 1 AS "held" FROM "Run" WHERE "id" = ? AND "leaseOwner" = ? AND "leaseEpoch" = ?`,
    values: [lease.runId, lease.owner, lease.epoch],
  };
}

/** When the next run that `owner` does not hold becomes claimable. */
export function nextRunnableAt(owner: string, after: Date): Statement {
  return {
    sql: `SELECT min("runnableAt") AS "at" FROM "Run" WHERE "runnableAt" > ? AND ("leaseOwner" IS NULL OR "leaseOwner" <> ?)`,
    values: [after, owner],
  };
}
