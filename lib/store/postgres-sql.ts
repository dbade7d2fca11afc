import { auditRow } from "@/lib/audit/audit-log";
import type { NewRun, StepCommit } from "@/lib/runtime/store";
import type { NewEntry } from "./state-entries";
import {
  ACTIVE_STATUSES,
  WAKEABLE_STATUSES,
  eventRows,
  intentResult,
  intentRow,
  json,
  packetChanges,
  packetRow,
  parksOnEvent,
  runChanges,
  wakeupOf,
  type Row,
  type Statement,
} from "./rows";
import { notifySql, wakeupPayload } from "./wakeups";

// Postgres statements for the hot path of a worker: claim, renew, release, commit a step.
//
// Why raw SQL here: through Prisma's client engine every model query is compiled by the WASM query
// compiler (no plan cache), and an interactive $transaction on Postgres is BEGIN + one round trip per
// statement + COMMIT. A step's commit written as ONE statement (a chain of data-modifying CTEs) is
// one round trip, and atomic by itself: a single autocommit statement either writes everything or
// nothing. Each write depends on `head`, the fenced UPDATE of the run: when the fence (or the packet
// compare-and-set) does not hold, `head` is empty and no CTE writes a row.
//
// These builders only produce text + bound values; lib/store/prisma-store.ts runs them through
// Prisma ($queryRawUnsafe). Nothing from the caller is ever spliced into the SQL text: every value
// is a parameter, with an explicit cast so Postgres never has to guess a type (a null has none).
// Column names and types: prisma/postgres/migrations (timestamps are TIMESTAMP(3) holding UTC, as
// @prisma/adapter-pg formats a Date parameter; JSON documents are TEXT).

type PgType = "text" | "int" | "timestamp(3)" | "text[]" | "int[]";

/** The non-text columns this file writes (prisma/postgres/migrations); every other one is TEXT. */
const COLUMN_TYPES: Record<string, PgType> = {
  seq: "int",
  step: "int",
  attempt: "int",
  requiredApprovals: "int",
  version: "int",
  stateSeq: "int",
  eventSeq: "int",
  entrySeq: "int",
  runnableAt: "timestamp(3)",
  at: "timestamp(3)",
  createdAt: "timestamp(3)",
  completedAt: "timestamp(3)",
  expiresAt: "timestamp(3)",
  usedAt: "timestamp(3)",
  decidedAt: "timestamp(3)",
  consumedAt: "timestamp(3)",
  wakeAt: "timestamp(3)",
  leaseExpiresAt: "timestamp(3)",
  updatedAt: "timestamp(3)",
  impactRank: "int",
  changedAt: "timestamp(3)",
  spawnedAtStep: "int",
};
const columnType = (column: string): PgType => COLUMN_TYPES[column] ?? "text";

/** Collects bound values; `add` returns the placeholder, e.g. `$3::text`. */
class Params {
  readonly values: unknown[] = [];
  add(value: unknown, type: PgType): string {
    this.values.push(value === undefined ? null : value);
    return `$${this.values.length}::${type}`;
  }
}

/** `"col" = $n::type` for each column of a row. */
function assignments(p: Params, row: Row): string[] {
  return Object.entries(row).map(([column, value]) => `"${column}" = ${p.add(value, columnType(column))}`);
}

/** INSERT of one row that happens only when the run's fenced update did (SELECT … FROM head). */
function insertFromHead(p: Params, table: string, row: Row, fromHead: string[] = []): string {
  const columns = [...Object.keys(row), ...fromHead].map((c) => `"${c}"`).join(", ");
  const values = [
    ...Object.entries(row).map(([column, value]) => p.add(value, columnType(column))),
    ...fromHead.map((c) => `head."${c}"`),
  ].join(", ");
  return `INSERT INTO "${table}" (${columns}) SELECT ${values} FROM head`;
}

/** The state's new entries (state-entries.ts), numbered from `base` + 1, inserted only when `source` has a row. */
function insertEntries(p: Params, entries: NewEntry[], runId: string, source: string, base: string): string {
  return `INSERT INTO "StateEntry" ("runId", "seq", "kind", "key", "value")
      SELECT ${runId}, ${base} + e.n::int, e.kind, e.key, e.value
      FROM ${source}, unnest(${p.add(
        entries.map((e) => e.kind),
        "text[]",
      )}, ${p.add(
        entries.map((e) => e.key),
        "text[]",
      )}, ${p.add(
        entries.map((e) => e.value),
        "text[]",
      )})
        WITH ORDINALITY AS e(kind, key, value, n)`;
}

/** The lease fence of every write made under a lease. */
function fence(p: Params, lease: StepCommit["lease"]): string {
  return `"Run"."id" = ${p.add(lease.runId, "text")} AND "Run"."leaseOwner" = ${p.add(lease.owner, "text")} AND "Run"."leaseEpoch" = ${p.add(lease.epoch, "int")}`;
}

/** Runs a worker may claim at `now` (placeholder): runnableAt is due and the old predicate still holds. */
function claimable(p: Params, now: string): string {
  return `"runnableAt" <= ${now} AND ("leaseOwner" IS NULL OR "leaseExpiresAt" < ${now})
        AND ("status" = ANY(${p.add(ACTIVE_STATUSES, "text[]")})
             OR ("status" = ANY(${p.add(WAKEABLE_STATUSES, "text[]")}) AND "wakeAt" <= ${now}))`;
}

/**
 * Claim up to `limit` runnable runs, oldest runnableAt first (the Run_runnableAt_idx range): bump
 * each epoch, set the lease, and make the lease's expiry the run's runnableAt (a dead worker's runs
 * come back then). Returns the whole rows.
 * A batch skips rows another transaction holds locked (SKIP LOCKED), and the runs in `exclude` (the
 * claimer is still driving them; an empty list keeps the statement's text, so its prepared plan, the same).
 * Many workers claim side by side
 * without queueing behind each other, and a run skipped now is claimed on the next round. A named
 * run waits for the lock instead (FOR UPDATE), then READ COMMITTED re-checks it: a run that is only
 * being written by someone else (a signal's event) is not reported as unclaimable.
 */
export function claimRunsStatement(opts: {
  owner: string;
  now: Date;
  expiresAt: Date;
  limit: number;
  runId?: string;
  exclude?: string[];
  updatedAt: Date;
}): Statement {
  const p = new Params();
  const now = p.add(opts.now, "timestamp(3)");
  const expiresAt = p.add(opts.expiresAt, "timestamp(3)");
  const sql = `
    WITH next AS (
      SELECT "id" FROM "Run"
      WHERE ${claimable(p, now)}
        ${opts.runId ? `AND "id" = ${p.add(opts.runId, "text")}` : `AND NOT ("id" = ANY(${p.add(opts.exclude ?? [], "text[]")}))`}
      ORDER BY "runnableAt" ASC
      LIMIT ${p.add(opts.limit, "int")}
      FOR UPDATE ${opts.runId ? "" : "SKIP LOCKED"}
    )
    UPDATE "Run" SET
      "leaseOwner" = ${p.add(opts.owner, "text")},
      "leaseEpoch" = "Run"."leaseEpoch" + 1,
      "leaseExpiresAt" = ${expiresAt},
      "runnableAt" = ${expiresAt},
      "updatedAt" = ${p.add(opts.updatedAt, "timestamp(3)")}
    FROM next WHERE "Run"."id" = next."id"
    RETURNING "Run".*`;
  return { sql, values: p.values };
}

/** One heartbeat for every lease a worker holds: one statement; the ids returned are the leases that held. */
export function renewLeasesStatement(
  owner: string,
  leases: Array<StepCommit["lease"]>,
  expiresAt: Date,
  updatedAt: Date,
): Statement {
  const p = new Params();
  const expires = p.add(expiresAt, "timestamp(3)");
  const sql = `
    UPDATE "Run" SET "leaseExpiresAt" = ${expires}, "runnableAt" = ${expires}, "updatedAt" = ${p.add(updatedAt, "timestamp(3)")}
    FROM unnest(${p.add(
      leases.map((l) => l.runId),
      "text[]",
    )}, ${p.add(
      leases.map((l) => l.epoch),
      "int[]",
    )}) AS held("id", "epoch")
    WHERE "Run"."id" = held."id" AND "Run"."leaseEpoch" = held."epoch" AND "Run"."leaseOwner" = ${p.add(owner, "text")}
    RETURNING "Run"."id"`;
  return { sql, values: p.values };
}

/** Give a run back: runnable at once if it still has work (and other workers are told), else at its timer. */
export function releaseLeaseStatement(lease: StepCommit["lease"], at: Date, updatedAt: Date): Statement {
  const p = new Params();
  const atTs = p.add(at, "timestamp(3)");
  const active = p.add(ACTIVE_STATUSES, "text[]");
  const sql = `
    WITH released AS (
      UPDATE "Run" SET "leaseOwner" = NULL, "leaseExpiresAt" = NULL, "updatedAt" = ${p.add(updatedAt, "timestamp(3)")},
        "runnableAt" = CASE WHEN "status" = ANY(${active}) THEN ${atTs}
                            WHEN "status" = ANY(${p.add(WAKEABLE_STATUSES, "text[]")}) THEN "wakeAt" ELSE NULL END
      WHERE ${fence(p, lease)}
      RETURNING "id", "status")
    SELECT "status", CASE WHEN "status" = ANY(${active}) THEN ${notifySql(`"id"`)} ELSE 0 END AS "notified" FROM released`;
  return { sql, values: p.values };
}

/**
 * A new run as one statement: the run, its first checkpoint and its first events, and the NOTIFY
 * that wakes workers — one round trip, no interactive transaction (a burst of new runs would queue
 * for the pool's connections and time out waiting to BEGIN). A run whose idempotency key is already
 * taken inserts nothing and returns no row (the caller reads the first one).
 */
export function createRunStatement(
  run: NewRun,
  state: { head: string; entries: NewEntry[] },
  at: Date,
  wallClock: Date,
): Statement {
  const p = new Params();
  const row: Row = {
    id: run.id,
    agentSlug: run.agentSlug,
    agentVersion: run.agentVersion,
    status: "QUEUED",
    input: json(run.input),
    state: state.head,
    stateSeq: 1,
    eventSeq: run.events.length,
    entrySeq: state.entries.length,
    idempotencyKey: run.idempotencyKey,
    startedBy: run.startedBy,
    parentRunId: run.parentRunId,
    workspaceId: run.workspaceId,
    spawnedByRunId: run.spawnedByRunId ?? null,
    spawnedAtStep: run.spawnedAtStep ?? null,
    runnableAt: at,
    createdAt: wallClock,
    updatedAt: wallClock,
  };
  const atTs = p.add(at, "timestamp(3)");
  const ctes = [
    `created AS (
      INSERT INTO "Run" (${Object.keys(row)
        .map((c) => `"${c}"`)
        .join(", ")})
      VALUES (${Object.entries(row)
        .map(([c, v]) => p.add(v, columnType(c)))
        .join(", ")})
      ON CONFLICT ("workspaceId", "idempotencyKey") DO NOTHING
      RETURNING *)`,
    `checkpoint AS (
      INSERT INTO "Checkpoint" ("runId", "seq", "step", "state", "entrySeq", "createdAt")
      SELECT created."id", 1, ${p.add(run.state.step, "int")}, created."state", created."entrySeq", ${atTs} FROM created)`,
  ];
  if (state.entries.length > 0)
    ctes.push(`entries AS (${insertEntries(p, state.entries, `created."id"`, "created", "0")})`);
  if (run.events.length > 0) {
    ctes.push(`events AS (
      INSERT INTO "TraceEvent" ("runId", "seq", "step", "type", "data", "at")
      SELECT created."id", e.n::int, e.step, e.type, e.data, ${atTs}
      FROM created, unnest(${p.add(
        run.events.map((e) => e.step),
        "int[]",
      )}, ${p.add(
        run.events.map((e) => e.type),
        "text[]",
      )}, ${p.add(
        run.events.map((e) => json(e.data)),
        "text[]",
      )})
        WITH ORDINALITY AS e(step, type, data, n))`);
  }
  if (run.audit) {
    const audit = auditRow(run.audit);
    ctes.push(`audit AS (
      INSERT INTO "AuditLog" ("workspaceId", "id", "actor", "action", "target", "data", "at")
      SELECT created."workspaceId", ${p.add(audit.id, "text")}, ${p.add(audit.actor, "text")}, ${p.add(audit.action, "text")}, ${p.add(audit.target, "text")}, ${p.add(audit.data, "text")}, ${p.add(wallClock, "timestamp(3)")} FROM created)`);
  }
  return {
    sql: `WITH ${ctes.join(",\n")} SELECT created.*, ${notifySql(`created."id"`)} AS "notified" FROM created`,
    values: p.values,
  };
}

/** When the next run that `owner` does not hold becomes claimable (a timer, another worker's lease expiry). */
export function nextRunnableAtStatement(owner: string, after: Date): Statement {
  const p = new Params();
  const sql = `SELECT min("runnableAt") AS "at" FROM "Run" WHERE "runnableAt" > ${p.add(after, "timestamp(3)")}
    AND ("leaseOwner" IS NULL OR "leaseOwner" <> ${p.add(owner, "text")})`;
  return { sql, values: p.values };
}

/** Does the lease still hold? (Only asked after a commit wrote nothing, to say why.) */
export function leaseHeldStatement(lease: StepCommit["lease"]): Statement {
  const p = new Params();
  return { sql: `SELECT 1 AS "held" FROM "Run" WHERE ${fence(p, lease)}`, values: p.values };
}

/** What the commit statement returns: one row when it wrote, none when the fence or the packet CAS failed. */
export type CommitRow = { stateSeq: number; eventSeq: number; woken: boolean; otherWoken?: boolean };

/**
 * The whole of a step's commit as one statement. `at` is the store's clock (checkpoint, events,
 * completion times); `updatedAt` is the wall clock Prisma's @updatedAt would have written.
 *
 * Order of locks: the packet row (when the commit does a compare-and-set on it), then the run row —
 * the same order as decidePacket, so the two cannot deadlock.
 */
export function commitStepStatement(
  commit: StepCommit,
  state: { head: string; entries: NewEntry[] },
  at: Date,
  updatedAt: Date,
): Statement {
  const p = new Params();
  const { lease, events } = commit;
  const runId = p.add(lease.runId, "text");
  const atTs = p.add(at, "timestamp(3)");
  const ctes: string[] = [];

  // The packet compare-and-set. FOR UPDATE, not a plain EXISTS: a plain read sees the statement's
  // snapshot, and a reviewer's decision committed after it would make the packet's UPDATE match no
  // row while the run's commit went through. Locking re-reads the newest version (READ COMMITTED)
  // and holds it until this statement commits, so the CAS and everything else stand or fall together.
  const u = commit.updatePacket;
  if (u) {
    ctes.push(`packet AS MATERIALIZED (
      SELECT "id" FROM "DecisionPacket" WHERE "id" = ${p.add(u.id, "text")} AND "version" = ${p.add(u.version, "int")} FOR UPDATE)`);
  }

  // A signal that arrived while this step ran must not be missed: a run parking on an event that
  // is already here wakes at once. This read sees the statement's snapshot (signals consumed by this
  // very commit excluded); prisma-store looks once more after the commit for one committed meanwhile.
  const waitingFor = parksOnEvent(commit);
  const consumeIds = commit.consumeSignalIds?.length ? p.add(commit.consumeSignalIds, "text[]") : null;
  if (waitingFor) {
    ctes.push(`waiting AS (
      SELECT EXISTS (SELECT 1 FROM "Signal" WHERE "runId" = ${runId} AND "type" = ${p.add(waitingFor, "text")} AND "consumedAt" IS NULL
        ${consumeIds ? `AND NOT ("id" = ANY(${consumeIds}))` : ""}) AS "found")`);
  }

  const { wakeAt, runnableAt, ...changes } = runChanges(commit, at, state.head);
  const eventCount = p.add(events.length, "int");
  const entryCount = p.add(state.entries.length, "int");
  // A run that parks on an event already here wakes now: both its wakeAt and its runnableAt.
  const wakeAtSql = waitingFor
    ? `CASE WHEN (SELECT "found" FROM waiting) THEN ${atTs} ELSE ${p.add(wakeAt, "timestamp(3)")} END`
    : p.add(wakeAt, "timestamp(3)");
  const set = [
    ...assignments(p, changes),
    `"stateSeq" = "Run"."stateSeq" + 1`,
    `"eventSeq" = "Run"."eventSeq" + ${eventCount}`,
    `"entrySeq" = "Run"."entrySeq" + ${entryCount}`,
    `"wakeAt" = ${wakeAtSql}`,
    ...(commit.releaseLease ? [`"runnableAt" = ${waitingFor ? wakeAtSql : p.add(runnableAt, "timestamp(3)")}`] : []),
    `"updatedAt" = ${p.add(updatedAt, "timestamp(3)")}`,
  ];
  // The permission epoch the step checked must still be the epoch: FOR SHARE waits for a permission
  // change in flight and reads what it committed, so no change slips between check and commit.
  if (commit.permissionEpoch !== undefined) {
    ctes.push(`epoch AS MATERIALIZED (SELECT "value" FROM "Epoch" WHERE "name" = 'permissions' FOR SHARE)`);
  }
  const epochHolds =
    commit.permissionEpoch !== undefined
      ? `AND COALESCE((SELECT "value" FROM epoch), 0) = ${p.add(commit.permissionEpoch, "int")}`
      : "";
  ctes.push(`head AS (
    UPDATE "Run" SET ${set.join(", ")}
    WHERE ${fence(p, lease)} ${u ? `AND EXISTS (SELECT 1 FROM packet)` : ""} ${epochHolds}
    RETURNING "Run"."stateSeq", "Run"."eventSeq", "Run"."entrySeq", "Run"."state", "Run"."workspaceId")`);

  // Every CTE below reads FROM head: an empty head (fenced out, or the CAS lost) writes nothing.
  // The checkpoint takes the state's head from head: the JSON is sent once.
  ctes.push(`checkpoint AS (
    INSERT INTO "Checkpoint" ("runId", "seq", "step", "state", "entrySeq", "createdAt")
    SELECT ${runId}, head."stateSeq", ${p.add(commit.state.step, "int")}, head."state", head."entrySeq", ${atTs} FROM head)`);
  if (state.entries.length > 0)
    ctes.push(`entries AS (${insertEntries(p, state.entries, runId, "head", `head."entrySeq" - ${entryCount}`)})`);

  if (events.length > 0) {
    // Seqs: the run's eventSeq after the increment is the last one of this commit's events.
    const rows = eventRows(commit, at);
    ctes.push(`events AS (
      INSERT INTO "TraceEvent" ("runId", "seq", "step", "type", "data", "at")
      SELECT ${runId}, head."eventSeq" - ${eventCount} + e.n::int, e.step, e.type, e.data, ${atTs}
      FROM head, unnest(${p.add(
        rows.map((r) => r.step),
        "int[]",
      )}, ${p.add(
        rows.map((r) => r.type),
        "text[]",
      )}, ${p.add(
        rows.map((r) => r.data),
        "text[]",
      )})
        WITH ORDINALITY AS e(step, type, data, n))`);
  }
  if (commit.createIntent)
    ctes.push(`intent_created AS (${insertFromHead(p, "EffectIntent", intentRow(commit.createIntent, at))})`);
  if (commit.updateIntent) {
    ctes.push(`intent_updated AS (
      UPDATE "EffectIntent" SET ${assignments(p, intentResult(commit.updateIntent, at)).join(", ")}
      FROM head WHERE "EffectIntent"."id" = ${p.add(commit.updateIntent.id, "text")})`);
  }
  if (commit.createPacket)
    ctes.push(
      `packet_created AS (${insertFromHead(p, "DecisionPacket", packetRow(commit.createPacket, at), ["workspaceId"])})`,
    );
  if (u) {
    // The row locked by `packet` above, whose version matched; undefined fields are left alone.
    ctes.push(`packet_updated AS (
      UPDATE "DecisionPacket" SET ${[`"version" = "DecisionPacket"."version" + 1`, ...assignments(p, packetChanges(u, at))].join(", ")}
      FROM head, packet WHERE "DecisionPacket"."id" = packet."id")`);
  }
  if (consumeIds) {
    ctes.push(`signals_consumed AS (
      UPDATE "Signal" SET "consumedAt" = ${atTs}
      FROM head WHERE "Signal"."id" = ANY(${consumeIds}) AND "Signal"."consumedAt" IS NULL)`);
  }

  // Another run parked on this event type wakes with this commit (StepCommit.wakeRun: a child's parent).
  if (commit.wakeRun) {
    ctes.push(`other_woken AS (
      UPDATE "Run" SET "wakeAt" = ${atTs}, "runnableAt" = ${atTs}, "updatedAt" = ${p.add(updatedAt, "timestamp(3)")}
      FROM head WHERE "Run"."id" = ${p.add(commit.wakeRun.runId, "text")} AND "Run"."status" = 'WAITING_EVENT' AND "Run"."waitingFor" = ${p.add(commit.wakeRun.waitingFor, "text")}
      RETURNING "Run"."id")`);
  }

  // Other workers hear of a run given back with a timer, or woken at once, from this transaction.
  const timer = wakeupOf(commit, false, at);
  const notify = timer ? notifySql(p.add(wakeupPayload(timer), "text")) : "0";
  const notified = waitingFor
    ? `CASE WHEN (SELECT "found" FROM waiting) THEN ${notifySql(p.add(lease.runId, "text"))} ELSE ${notify} END`
    : notify;
  const otherWoken = commit.wakeRun
    ? `, EXISTS (SELECT 1 FROM other_woken) AS "otherWoken", (SELECT ${notifySql(`other_woken."id"`)} FROM other_woken) AS "otherNotified"`
    : "";
  const sql = `WITH ${ctes.join(",\n")}
    SELECT head."stateSeq", head."eventSeq", ${waitingFor ? `(SELECT "found" FROM waiting)` : "false"} AS "woken", ${notified} AS "notified"${otherWoken} FROM head`;
  return { sql, values: p.values };
}

/**
 * After a commit that parked the run on an event without finding one: look again, in a new
 * statement (a new snapshot). A signal whose delivery committed while the commit statement ran was
 * invisible to it, and its delivery could not wake the run either (the run was not yet parked when
 * it looked). deliverSignal takes the run's row lock before its wake check, so every signal is seen
 * by one side or the other. Only the state this commit wrote (its stateSeq) is touched.
 */
export function wakeIfSignalWaitingStatement(opts: {
  runId: string;
  waitingFor: string;
  stateSeq: number;
  at: Date;
  updatedAt: Date;
}): Statement {
  const p = new Params();
  const runId = p.add(opts.runId, "text");
  const type = p.add(opts.waitingFor, "text");
  const at = p.add(opts.at, "timestamp(3)");
  const sql = `
    WITH woken AS (
      UPDATE "Run" SET "wakeAt" = ${at}, "runnableAt" = ${at}, "updatedAt" = ${p.add(opts.updatedAt, "timestamp(3)")}
      WHERE "id" = ${runId} AND "status" = 'WAITING_EVENT' AND "waitingFor" = ${type} AND "stateSeq" = ${p.add(opts.stateSeq, "int")}
        AND EXISTS (SELECT 1 FROM "Signal" WHERE "runId" = ${runId} AND "type" = ${type} AND "consumedAt" IS NULL)
      RETURNING "id")
    SELECT ${notifySql(`"id"`)} AS "notified" FROM woken`;
  return { sql, values: p.values };
}
