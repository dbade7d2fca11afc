import { AppError } from "@/lib/runtime/errors";
import type { CommitResult, RuntimeStore, StepCommit } from "@/lib/runtime/store";
import type { Dialect } from "./dialect";
import { leaseLost, leaseSql } from "./leases";
import { PERMISSIONS_EPOCH } from "./permissions";
import * as pg from "./postgres-sql";
import {
  eventRows,
  intentResult,
  intentRow,
  packetChanges,
  packetRow,
  parksOnEvent,
  runChanges,
  wakeupOf,
  type Row,
  type Statement,
} from "./rows";
import * as sqlite from "./sqlite-sql";
import { splitState, type NewEntry, type SplitState } from "./state-entries";
import { notifySql, wakeupPayload } from "./wakeups";

// A step's commit: everything one step writes (the run's new state and status, its checkpoint, state
// entries and trace events, an effect intent, a packet, consumed signals, another run woken), fenced by
// the lease, all or nothing. Fencing is a conditional update on (id, leaseOwner, leaseEpoch); the event
// and entry seqs come from atomic increments of the run's counters in the same write.
// Postgres: one statement (a chain of CTEs), one round trip; commits ready together share a
// transaction (group-commit.ts). SQLite: a few raw statements in one transaction on the connection. Same rules.

type StepStore = Pick<RuntimeStore, "commitStep">;
type Written = CommitResult & { woken: boolean; otherWoken: boolean };

export function createStepStore(d: Dialect, permissionEpoch: () => Promise<number>): StepStore {
  const write = d.name === "postgres" ? commitOnPostgres(d, permissionEpoch) : commitOnSqlite(d);
  return {
    async commitStep(commit: StepCommit): Promise<CommitResult> {
      const at = d.now();
      const { woken, otherWoken, ...result } = await write(commit, splitState(commit.state, commit.storedEntries), at);
      const wakeup = wakeupOf(commit, woken, at);
      if (wakeup) d.wakeups.emit(wakeup);
      if (otherWoken && commit.wakeRun) d.wakeups.emit({ runId: commit.wakeRun.runId });
      return result;
    },
  };
}

/** Why a commit wrote nothing: the lease first, then the permission epoch, then the packet CAS. */
async function whyNotWritten(
  commit: StepCommit,
  held: boolean,
  currentEpoch: () => Promise<number>,
): Promise<AppError> {
  if (!held) return leaseLost(commit.lease);
  if (commit.permissionEpoch !== undefined) {
    const epoch = await currentEpoch();
    if (epoch !== commit.permissionEpoch) {
      return new AppError("PERMISSIONS_CHANGED", {
        message: `permissions changed (epoch ${commit.permissionEpoch} → ${epoch}) between run ${commit.lease.runId}'s check and its commit`,
        userMessage: "The permissions changed while the run was acting; it checks them again.",
      });
    }
  }
  if (commit.updatePacket) return packetChanged(commit.updatePacket.id);
  return leaseLost(commit.lease);
}

function packetChanged(packetId: string) {
  return new AppError("CONFLICT", {
    message: `packet ${packetId} changed concurrently`,
    userMessage: "The decision packet changed while the run was acting on it.",
  });
}

// ---- Postgres: one statement, plus a read only when it wrote nothing.

/** What the commit statement returns: one row when it wrote, none when the fence or the packet CAS failed. */
type CommitRow = { stateSeq: number; eventSeq: number; woken: boolean; otherWoken?: boolean };

function commitOnPostgres(d: Dialect, permissionEpoch: () => Promise<number>) {
  const held = leaseSql(d).leaseHeld;
  const statements = commitStatements();
  return async (commit: StepCommit, state: SplitState, at: Date): Promise<Written> => {
    const { lease } = commit;
    const [row] = await d.commits<CommitRow>(statements(commit, state, at, d.wallClock()));
    if (!row) throw await whyNotWritten(commit, (await d.query(held(lease))).length > 0, permissionEpoch);
    const waitingFor = parksOnEvent(commit);
    let woken = row.woken;
    if (waitingFor && !woken) {
      // The commit stands; this closes the window of a signal delivered while it ran (see the statement).
      const wake = { runId: lease.runId, waitingFor, stateSeq: row.stateSeq, at, updatedAt: d.wallClock() };
      woken = (await d.query(postgresWakeIfSignalWaiting(wake))).length > 0;
    }
    return { stateSeq: row.stateSeq, eventSeq: row.eventSeq, woken, otherWoken: Boolean(row.otherWoken) };
  };
}

/** What a commit statement is run with: the commit and the rows made from it (rows.ts). */
type CommitValues = {
  commit: StepCommit;
  entries: NewEntry[];
  at: Date;
  updatedAt: Date;
  waitingFor: string | null;
  /** The run's new values, besides the seq increments and wake times (set apart below). */
  run: Row;
  wakeAt: Date | null;
  runnableAt: Date | null;
  events: Row[];
  intent: Row | null;
  intentResult: Row | null;
  packet: Row | null;
  packetChanges: Row | null;
  /** The NOTIFY payload of the run given back with a timer (wakeups.ts), when it is. */
  timer: string | null;
};

/**
 * What the commit statement's text depends on, and nothing else: which parts the commit has and which
 * columns each sets, never a value. The builder sees only this, so two commits of one shape always get
 * the same text (the statement is prepared once per connection: hot-path.ts).
 */
type CommitShape = {
  parks: boolean;
  consumes: boolean;
  releases: boolean;
  epoch: boolean;
  entries: boolean;
  events: boolean;
  wakesOther: boolean;
  timer: boolean;
  runColumns: string[];
  intentColumns: string[] | null;
  intentResultColumns: string[] | null;
  packetColumns: string[] | null;
  packetChangeColumns: string[] | null;
};

/** More shapes than a commit can take (its parts and optional columns): past it, the texts are built again. */
const MAX_SHAPES = 512;

/**
 * A step's commit as one statement, its text built once per shape: building it (a chain of CTEs, ~1.5 KB)
 * and hashing the new text to find its prepared statement cost 8–14 µs a step; a shape's text is kept
 * (the same string each time: found at once), and each commit only reads its values (≈ 3 µs).
 */
function commitStatements() {
  const byShape = new Map<string, { sql: string; slots: pg.Slots<CommitValues> }>();
  return (commit: StepCommit, state: SplitState, at: Date, updatedAt: Date): Statement => {
    const { wakeAt, runnableAt, ...run } = runChanges(commit, at, state.head);
    const timer = wakeupOf(commit, false, at);
    const values: CommitValues = {
      commit,
      entries: state.entries,
      at,
      updatedAt,
      waitingFor: parksOnEvent(commit),
      run,
      wakeAt: wakeAt as Date | null,
      runnableAt: runnableAt as Date | null,
      events: commit.events.length > 0 ? eventRows(commit, at) : [],
      intent: commit.createIntent ? intentRow(commit.createIntent, at) : null,
      intentResult: commit.updateIntent ? intentResult(commit.updateIntent, at) : null,
      packet: commit.createPacket ? packetRow(commit.createPacket, at) : null,
      packetChanges: commit.updatePacket ? packetChanges(commit.updatePacket, at) : null,
      timer: (timer && wakeupPayload(timer)) ?? null,
    };
    const shape: CommitShape = {
      parks: values.waitingFor !== null,
      consumes: Boolean(commit.consumeSignalIds?.length),
      releases: Boolean(commit.releaseLease),
      epoch: commit.permissionEpoch !== undefined,
      entries: state.entries.length > 0,
      events: commit.events.length > 0,
      wakesOther: Boolean(commit.wakeRun),
      timer: timer !== null,
      runColumns: Object.keys(run),
      intentColumns: values.intent && Object.keys(values.intent),
      intentResultColumns: values.intentResult && Object.keys(values.intentResult),
      packetColumns: values.packet && Object.keys(values.packet),
      packetChangeColumns: values.packetChanges && Object.keys(values.packetChanges),
    };
    const key = JSON.stringify(shape);
    let statement = byShape.get(key);
    if (!statement) {
      if (byShape.size >= MAX_SHAPES) byShape.clear();
      const slots = new pg.Slots<CommitValues>();
      statement = { sql: postgresCommitSql(shape, slots), slots };
      byShape.set(key, statement);
    }
    return { sql: statement.sql, values: statement.slots.values(values) };
  };
}

/** `"col" = $n::type` for each of `columns`, read from the row `rowOf` picks. */
const assignments = (slots: pg.Slots<CommitValues>, columns: string[], rowOf: (v: CommitValues) => Row | null) =>
  columns.map((column) => `"${column}" = ${slots.add((v) => rowOf(v)![column], pg.columnType(column))}`);

/**
 * The whole of a step's commit as one statement, atomic by itself: each write depends on `head`, the
 * fenced UPDATE of the run, so when the fence (or the packet compare-and-set) does not hold, `head` is
 * empty and no CTE writes a row. `at` is the store's clock (checkpoint, events, completion times);
 * `updatedAt` is the wall clock Prisma's @updatedAt would have written.
 *
 * Order of locks: the packet row (when the commit does a compare-and-set on it), then the run row —
 * the same order as decidePacket, so the two cannot deadlock.
 */
function postgresCommitSql(shape: CommitShape, p: pg.Slots<CommitValues>): string {
  const runId = p.add((v) => v.commit.lease.runId, "text");
  const atTs = p.add((v) => v.at, "timestamp(3)");
  const ctes: string[] = [];

  // The packet compare-and-set. FOR UPDATE, not a plain EXISTS: a plain read sees the statement's
  // snapshot, and a reviewer's decision committed after it would make the packet's UPDATE match no
  // row while the run's commit went through. Locking re-reads the newest version (READ COMMITTED)
  // and holds it until this statement commits, so the CAS and everything else stand or fall together.
  const casPacket = shape.packetChangeColumns !== null;
  if (casPacket) {
    ctes.push(`packet AS MATERIALIZED (
      SELECT "id" FROM "DecisionPacket" WHERE "id" = ${p.add((v) => v.commit.updatePacket!.id, "text")} AND "version" = ${p.add((v) => v.commit.updatePacket!.version, "int")} FOR UPDATE)`);
  }

  // A signal that arrived while this step ran must not be missed: a run parking on an event that
  // is already here wakes at once. This read sees the statement's snapshot (signals consumed by this
  // very commit excluded); commitStep looks once more after the commit for one committed meanwhile.
  const consumeIds = shape.consumes ? p.add((v) => v.commit.consumeSignalIds, "text[]") : null;
  if (shape.parks) {
    ctes.push(`waiting AS (
      SELECT EXISTS (SELECT 1 FROM "Signal" WHERE "runId" = ${runId} AND "type" = ${p.add((v) => v.waitingFor, "text")} AND "consumedAt" IS NULL
        ${consumeIds ? `AND NOT ("id" = ANY(${consumeIds}))` : ""}) AS "found")`);
  }

  const eventCount = p.add((v) => v.commit.events.length, "int");
  const entryCount = p.add((v) => v.entries.length, "int");
  // A run that parks on an event already here wakes now: both its wakeAt and its runnableAt.
  const wakeAtSql = shape.parks
    ? `CASE WHEN (SELECT "found" FROM waiting) THEN ${atTs} ELSE ${p.add((v) => v.wakeAt, "timestamp(3)")} END`
    : p.add((v) => v.wakeAt, "timestamp(3)");
  const set = [
    ...assignments(p, shape.runColumns, (v) => v.run),
    `"stateSeq" = "Run"."stateSeq" + 1`,
    `"eventSeq" = "Run"."eventSeq" + ${eventCount}`,
    `"entrySeq" = "Run"."entrySeq" + ${entryCount}`,
    `"wakeAt" = ${wakeAtSql}`,
    ...(shape.releases
      ? [`"runnableAt" = ${shape.parks ? wakeAtSql : p.add((v) => v.runnableAt, "timestamp(3)")}`]
      : []),
    `"updatedAt" = ${p.add((v) => v.updatedAt, "timestamp(3)")}`,
  ];
  // The permission epoch the step checked must still be the epoch: FOR SHARE waits for a permission
  // change in flight and reads what it committed, so no change slips between check and commit.
  if (shape.epoch) {
    ctes.push(`epoch AS MATERIALIZED (SELECT "value" FROM "Epoch" WHERE "name" = 'permissions' FOR SHARE)`);
  }
  const epochHolds = shape.epoch
    ? `AND COALESCE((SELECT "value" FROM epoch), 0) = ${p.add((v) => v.commit.permissionEpoch, "int")}`
    : "";
  const fence = pg.fenceSql(
    p.add((v) => v.commit.lease.runId, "text"),
    p.add((v) => v.commit.lease.owner, "text"),
    p.add((v) => v.commit.lease.epoch, "int"),
  );
  ctes.push(`head AS (
    UPDATE "Run" SET ${set.join(", ")}
    WHERE ${fence} ${casPacket ? `AND EXISTS (SELECT 1 FROM packet)` : ""} ${epochHolds}
    RETURNING "Run"."stateSeq", "Run"."eventSeq", "Run"."entrySeq", "Run"."state", "Run"."workspaceId")`);

  // Every CTE below reads FROM head: an empty head (fenced out, or the CAS lost) writes nothing.
  // The checkpoint takes the state's head from head: the JSON is sent once.
  ctes.push(`checkpoint AS (
    INSERT INTO "Checkpoint" ("runId", "seq", "step", "state", "entrySeq", "createdAt")
    SELECT ${runId}, head."stateSeq", ${p.add((v) => v.commit.state.step, "int")}, head."state", head."entrySeq", ${atTs} FROM head)`);
  if (shape.entries) {
    const columns = {
      kinds: p.add((v) => v.entries.map((e) => e.kind), "text[]"),
      keys: p.add((v) => v.entries.map((e) => e.key), "text[]"),
      values: p.add((v) => v.entries.map((e) => e.value), "text[]"),
    };
    ctes.push(`entries AS (${pg.insertEntriesSql(columns, runId, "head", `head."entrySeq" - ${entryCount}`)})`);
  }

  if (shape.events) {
    // Seqs: the run's eventSeq after the increment is the last one of this commit's events.
    const columns = {
      steps: p.add((v) => v.events.map((r) => r.step), "int[]"),
      types: p.add((v) => v.events.map((r) => r.type), "text[]"),
      data: p.add((v) => v.events.map((r) => r.data), "text[]"),
    };
    ctes.push(`events AS (${pg.insertEventsSql(columns, runId, "head", `head."eventSeq" - ${eventCount}`, atTs)})`);
  }
  if (shape.intentColumns) {
    const columns = shape.intentColumns;
    const placeholders = columns.map((c) => p.add((v) => v.intent![c], pg.columnType(c)));
    ctes.push(`intent_created AS (${pg.insertFromHeadSql("EffectIntent", columns, placeholders)})`);
  }
  if (shape.intentResultColumns) {
    ctes.push(`intent_updated AS (
      UPDATE "EffectIntent" SET ${assignments(p, shape.intentResultColumns, (v) => v.intentResult).join(", ")}
      FROM head WHERE "EffectIntent"."id" = ${p.add((v) => v.commit.updateIntent!.id, "text")})`);
  }
  if (shape.packetColumns) {
    const columns = shape.packetColumns;
    const placeholders = columns.map((c) => p.add((v) => v.packet![c], pg.columnType(c)));
    ctes.push(`packet_created AS (${pg.insertFromHeadSql("DecisionPacket", columns, placeholders, ["workspaceId"])})`);
  }
  if (shape.packetChangeColumns) {
    // The row locked by `packet` above, whose version matched; undefined fields are left alone.
    const changes = assignments(p, shape.packetChangeColumns, (v) => v.packetChanges);
    ctes.push(`packet_updated AS (
      UPDATE "DecisionPacket" SET ${[`"version" = "DecisionPacket"."version" + 1`, ...changes].join(", ")}
      FROM head, packet WHERE "DecisionPacket"."id" = packet."id")`);
  }
  if (consumeIds) {
    ctes.push(`signals_consumed AS (
      UPDATE "Signal" SET "consumedAt" = ${atTs}
      FROM head WHERE "Signal"."id" = ANY(${consumeIds}) AND "Signal"."consumedAt" IS NULL)`);
  }

  // Another run parked on this event type wakes with this commit (StepCommit.wakeRun: a child's parent).
  if (shape.wakesOther) {
    ctes.push(`other_woken AS (
      UPDATE "Run" SET "wakeAt" = ${atTs}, "runnableAt" = ${atTs}, "updatedAt" = ${p.add((v) => v.updatedAt, "timestamp(3)")}
      FROM head WHERE "Run"."id" = ${p.add((v) => v.commit.wakeRun!.runId, "text")} AND "Run"."status" = 'WAITING_EVENT' AND "Run"."waitingFor" = ${p.add((v) => v.commit.wakeRun!.waitingFor, "text")}
      RETURNING "Run"."id")`);
  }

  // Other workers hear of a run given back with a timer, or woken at once, from this transaction.
  const notify = shape.timer ? notifySql(p.add((v) => v.timer, "text")) : "0";
  const notified = shape.parks
    ? `CASE WHEN (SELECT "found" FROM waiting) THEN ${notifySql(p.add((v) => v.commit.lease.runId, "text"))} ELSE ${notify} END`
    : notify;
  const otherWoken = shape.wakesOther
    ? `, EXISTS (SELECT 1 FROM other_woken) AS "otherWoken", (SELECT ${notifySql(`other_woken."id"`)} FROM other_woken) AS "otherNotified"`
    : "";
  return `WITH ${ctes.join(",\n")}
    SELECT head."stateSeq", head."eventSeq", ${shape.parks ? `(SELECT "found" FROM waiting)` : "false"} AS "woken", ${notified} AS "notified"${otherWoken} FROM head`;
}

/**
 * After a commit that parked the run on an event without finding one: look again, in a new
 * statement (a new snapshot). A signal whose delivery committed while the commit statement ran was
 * invisible to it, and its delivery could not wake the run either (the run was not yet parked when
 * it looked). deliverSignal takes the run's row lock before its wake check, so every signal is seen
 * by one side or the other. Only the state this commit wrote (its stateSeq) is touched.
 */
function postgresWakeIfSignalWaiting(opts: {
  runId: string;
  waitingFor: string;
  stateSeq: number;
  at: Date;
  updatedAt: Date;
}): Statement {
  const p = new pg.Params();
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

// ---- SQLite: raw statements in one transaction, run synchronously on the connection under Prisma's
// adapter (lib/sqlite-statements.ts); a throw rolls it all back.

/** Why the fenced update matched no row, read inside the transaction (see whyNotWritten). */
type NotWritten = { notWritten: { isHeld: boolean; epoch: number } };

function commitOnSqlite(d: Dialect) {
  const held = leaseSql(d).leaseHeld;
  const inTransaction = d.syncTransaction!;
  return async (commit: StepCommit, state: SplitState, at: Date): Promise<Written> => {
    const { lease } = commit;
    const updatedAt = d.wallClock();
    const written = await inTransaction((tx): Written | NotWritten => {
      const run = (s: Statement) => tx.run(s.sql, s.values);
      // The fence: only the current lease holder's write matches.
      const h = sqliteHead(commit, state, at, updatedAt);
      const [head] = tx.all<CommitResult & { entrySeq: number }>(h.sql, h.values);
      if (!head) {
        const stillHeld = held(lease);
        const [epoch] = tx.all<{ value: number }>(`SELECT "value" FROM "Epoch" WHERE "name" = ?`, [PERMISSIONS_EPOCH]);
        return { notWritten: { isHeld: tx.all(stillHeld.sql, stillHeld.values).length > 0, epoch: epoch?.value ?? 0 } };
      }
      run(sqliteCheckpoint(commit, at));
      for (const s of sqliteEntries(lease.runId, state.entries, head.entrySeq - state.entries.length + 1)) run(s);
      for (const s of sqliteEvents(commit, head.eventSeq - commit.events.length + 1, at)) run(s);
      if (commit.createIntent) run(sqlite.insert("EffectIntent", intentRow(commit.createIntent, at)));
      if (commit.updateIntent)
        run(sqlite.updateById("EffectIntent", commit.updateIntent.id, intentResult(commit.updateIntent, at)));
      if (commit.createPacket) {
        run(sqlite.insert("DecisionPacket", packetRow(commit.createPacket, at)));
        // The run's workspace owns its packets (Postgres takes it from the head row in the same statement).
        run({
          sql: `UPDATE "DecisionPacket" SET "workspaceId" = (SELECT "workspaceId" FROM "Run" WHERE "id" = ?) WHERE "id" = ?`,
          values: [lease.runId, commit.createPacket.id],
        });
      }
      if (commit.updatePacket && run(sqlitePacketCas(commit.updatePacket, at)) === 0)
        throw packetChanged(commit.updatePacket.id);
      if (commit.consumeSignalIds?.length) run(sqliteConsumeSignals(commit.consumeSignalIds, at));
      const waitingFor = parksOnEvent(commit);
      const woken = waitingFor ? run(sqliteWakeIfSignalWaiting(lease.runId, waitingFor, at, updatedAt)) > 0 : false;
      const otherWoken = commit.wakeRun
        ? run(sqliteWakeWaiting(commit.wakeRun.runId, commit.wakeRun.waitingFor, at, updatedAt)) > 0
        : false;
      return { stateSeq: head.stateSeq, eventSeq: head.eventSeq, woken, otherWoken };
    });
    if ("notWritten" in written) {
      const { isHeld, epoch } = written.notWritten;
      throw await whyNotWritten(commit, isHeld, async () => epoch);
    }
    return written;
  };
}

/** The fenced update of the run: no row back means the lease no longer holds, or the permission epoch
 *  the step checked has moved (nothing was written). */
function sqliteHead(commit: StepCommit, state: SplitState, at: Date, updatedAt: Date): Statement {
  const changes = runChanges(commit, at, state.head);
  const { lease } = commit;
  return {
    sql: `UPDATE "Run" SET ${sqlite.assignments(changes)}, "stateSeq" = "stateSeq" + 1, "eventSeq" = "eventSeq" + ?, "entrySeq" = "entrySeq" + ?, "updatedAt" = ?
      WHERE ${sqlite.fence}
        ${commit.permissionEpoch !== undefined ? `AND COALESCE((SELECT "value" FROM "Epoch" WHERE "name" = 'permissions'), 0) = ?` : ""}
      RETURNING "stateSeq", "eventSeq", "entrySeq"`,
    values: [
      ...Object.values(changes),
      commit.events.length,
      state.entries.length,
      updatedAt,
      ...sqlite.fenceValues(lease),
      ...(commit.permissionEpoch !== undefined ? [commit.permissionEpoch] : []),
    ],
  };
}
/** The checkpoint of the state just written, copied from the run's row (its new stateSeq, head and entrySeq). */
function sqliteCheckpoint(commit: StepCommit, at: Date): Statement {
  return {
    sql: `INSERT INTO "Checkpoint" ("runId", "seq", "step", "state", "entrySeq", "createdAt") SELECT "id", "stateSeq", ?, "state", "entrySeq", ? FROM "Run" WHERE "id" = ?`,
    values: [commit.state.step, at, commit.lease.runId],
  };
}
/** The state's new entries from `firstSeq` on (state-entries.ts), a few hundred rows a statement. */
function sqliteEntries(runId: string, list: NewEntry[], firstSeq: number): Statement[] {
  return sqlite.chunkedInsert(
    "StateEntry",
    list.map((e, i) => ({ runId, seq: firstSeq + i, kind: e.kind, key: e.key, value: e.value })),
  );
}
/** The commit's events from `firstSeq` on, a few hundred rows a statement (SQLite caps bound values). */
function sqliteEvents(commit: StepCommit, firstSeq: number, at: Date): Statement[] {
  return sqlite.chunkedInsert(
    "TraceEvent",
    eventRows(commit, at).map((r, i) => ({ runId: commit.lease.runId, seq: firstSeq + i, ...r })),
  );
}
/** Compare-and-set on the packet's version: 0 rows changed means it lost (the caller rolls back). */
function sqlitePacketCas(u: NonNullable<StepCommit["updatePacket"]>, at: Date): Statement {
  const changes = packetChanges(u, at);
  return {
    sql: `UPDATE "DecisionPacket" SET "version" = "version" + 1${Object.keys(changes).length ? `, ${sqlite.assignments(changes)}` : ""} WHERE "id" = ? AND "version" = ?`,
    values: [...Object.values(changes), u.id, u.version],
  };
}
function sqliteConsumeSignals(ids: string[], at: Date): Statement {
  return {
    sql: `UPDATE "Signal" SET "consumedAt" = ? WHERE "id" IN (${sqlite.placeholders(ids.length)}) AND "consumedAt" IS NULL`,
    values: [at, ...ids],
  };
}
/** A run parking on an event that is already here wakes at once (signals consumed by this commit no longer count). */
function sqliteWakeIfSignalWaiting(runId: string, type: string, at: Date, updatedAt: Date): Statement {
  return {
    sql: `UPDATE "Run" SET "wakeAt" = ?, "runnableAt" = ?, "updatedAt" = ? WHERE "id" = ?
      AND EXISTS (SELECT 1 FROM "Signal" WHERE "runId" = ? AND "type" = ? AND "consumedAt" IS NULL)`,
    values: [at, at, updatedAt, runId, runId, type],
  };
}
/** Wake another run parked on this event type (StepCommit.wakeRun). */
function sqliteWakeWaiting(runId: string, type: string, at: Date, updatedAt: Date): Statement {
  return {
    sql: `UPDATE "Run" SET "wakeAt" = ?, "runnableAt" = ?, "updatedAt" = ? WHERE "id" = ? AND "status" = 'WAITING_EVENT' AND "waitingFor" = ?`,
    values: [at, at, updatedAt, runId, type],
  };
}
