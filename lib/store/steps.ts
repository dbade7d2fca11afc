import { AppError } from "@/lib/runtime/errors";
import type { CommitResult, RuntimeStore, StepCommit } from "@/lib/runtime/store";
import type { Dialect } from "./dialect";
import { leaseLost, leaseSql } from "./leases";
import { PERMISSIONS_EPOCH } from "./permissions";
import { commitStatements } from "./postgres-commit-statement";
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
  type Statement,
} from "./rows";
import * as sqlite from "./sqlite-sql";
import { splitState, type NewEntry, type SplitState } from "./state-entries";
import { notifySql } from "./wakeups";

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
      const { woken, otherWoken, ...result } = await write(
        commit,
        splitState(commit.state, commit.storedEntries, commit.carried),
        at,
      );
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
      for (const s of sqliteCarriedCheckpoints(lease.runId, state, head, at)) run(s);
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
    sql: `UPDATE "Run" SET ${sqlite.assignments(changes)}, "stateSeq" = "stateSeq" + ?, "eventSeq" = "eventSeq" + ?, "entrySeq" = "entrySeq" + ?, "updatedAt" = ?
      WHERE ${sqlite.fence}
        ${commit.permissionEpoch !== undefined ? `AND COALESCE((SELECT "value" FROM "Epoch" WHERE "name" = 'permissions'), 0) = ?` : ""}
      RETURNING "stateSeq", "eventSeq", "entrySeq"`,
    values: [
      ...Object.values(changes),
      1 + state.carried.length,
      commit.events.length,
      state.entries.length,
      updatedAt,
      ...sqlite.fenceValues(lease),
      ...(commit.permissionEpoch !== undefined ? [commit.permissionEpoch] : []),
    ],
  };
}
/** The checkpoints of the steps the commit carries, before the last one's (SplitState.carried); `head`: the
 *  run's stateSeq and entrySeq after the commit. */
function sqliteCarriedCheckpoints(
  runId: string,
  state: SplitState,
  head: { stateSeq: number; entrySeq: number },
  at: Date,
): Statement[] {
  const firstSeq = head.stateSeq - state.carried.length;
  const firstEntrySeq = head.entrySeq - state.entries.length;
  return sqlite.chunkedInsert(
    "Checkpoint",
    state.carried.map((c, i) => ({
      runId,
      seq: firstSeq + i,
      step: c.step,
      state: c.head,
      entrySeq: firstEntrySeq + c.entries,
      createdAt: at,
    })),
  );
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
