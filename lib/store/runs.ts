import { auditRow, writeAudit } from "@/lib/audit/audit-log";
import { AppError } from "@/lib/runtime/errors";
import { storedEntriesOf } from "@/lib/runtime/state";
import type { NewRun, RunFilter, RuntimeStore } from "@/lib/runtime/store";
import type { Dialect } from "./dialect";
import * as pg from "./postgres-sql";
import { anyOf, isUniqueViolation, json, toListedRunRecord, toRunRecord, toRunRecords, type RunRow } from "./records";
import { runRow, runnableAtOf, type Row, type Statement } from "./rows";
import { NOTHING_STORED, insertEntries, splitState, type SplitState } from "./state-entries";
import { appendEvents, insertEvents } from "./trace-events";
import { notifyInTransaction, notifySql } from "./wakeups";

// Runs in the store: a new run (idempotent on its key within its workspace), reading and listing runs,
// and a run's moves outside a step (a person's or the engine's: cancel, resume, fail, upgrade), each with
// its trace events and audit row in the same transaction. A step's own commit is steps.ts.

type RunStore = Pick<RuntimeStore, "createRun" | "getRun" | "findRuns" | "transitionRun">;

export function createRunStore(d: Dialect): RunStore {
  const { db, now, wakeups } = d;
  const postgres = d.name === "postgres";
  const insertRun = postgres ? insertOnPostgres(d) : insertOnSqlite(d);
  return {
    async createRun(run: NewRun) {
      const row = await insertRun(run, splitState(run.state, NOTHING_STORED));
      if (!row) {
        // The idempotency key was taken (before, or by a request racing this one): the first run stands.
        const first = await db.run.findUniqueOrThrow({
          where: { workspaceId_idempotencyKey: { workspaceId: run.workspaceId, idempotencyKey: run.idempotencyKey! } },
        });
        return { run: (await toRunRecords(db, [first]))[0], created: false };
      }
      wakeups.emit({ runId: run.id });
      // The record handed back holds the state as given, all of it now stored.
      const record = { ...toRunRecord(row, []), state: run.state, storedEntries: storedEntriesOf(run.state) };
      return { run: record, created: true };
    },

    async getRun(id) {
      const row = await db.run.findUnique({ where: { id } });
      return row ? (await toRunRecords(db, [row]))[0] : null;
    },

    async findRuns({ status, limit, cursor, ...equal }: RunFilter) {
      const rows = await db.run.findMany({
        where: { ...equal, status: anyOf(status) },
        orderBy: [{ createdAt: "desc" }, { id: "desc" }],
        take: limit ?? 50,
        ...(cursor ? { cursor: { id: cursor }, skip: 1 } : {}),
      });
      return toRunRecords(db, rows, toListedRunRecord);
    },

    async transitionRun({
      runId,
      from,
      to,
      events,
      revokeLease,
      state: newState,
      error,
      agentVersion,
      audit,
      expect,
      wakeRun,
    }) {
      let otherWoken = false;
      const at = now();
      const state = newState ? splitState(newState.state, newState.storedEntries) : null;
      const record = await db.$transaction(async (tx) => {
        const { count } = await tx.run.updateMany({
          where: {
            id: runId,
            status: { in: from },
            ...(expect
              ? { stateSeq: expect.stateSeq, OR: [{ leaseOwner: null }, { leaseExpiresAt: { lt: at } }] }
              : {}),
          },
          data: {
            status: to,
            wakeAt: null,
            waitingFor: null,
            runnableAt: runnableAtOf(to, null, at),
            ...(error !== undefined ? { error } : {}),
            ...(agentVersion !== undefined ? { agentVersion } : {}),
            ...(state
              ? { state: state.head, stateSeq: { increment: 1 }, entrySeq: { increment: state.entries.length } }
              : {}),
            ...(revokeLease ? { leaseOwner: null, leaseExpiresAt: null, leaseEpoch: { increment: 1 } } : {}),
          },
        });
        if (count === 0) {
          const existing = await tx.run.findUnique({ where: { id: runId }, select: { status: true } });
          if (!existing)
            throw new AppError("NOT_FOUND", {
              message: `run ${runId} not found`,
              userMessage: "That run does not exist.",
            });
          if (expect && (from as string[]).includes(existing.status)) {
            throw new AppError("CONFLICT", {
              message: `run ${runId} moved on or is held by a worker`,
              userMessage: "A worker is running the run right now; try again in a moment.",
            });
          }
          throw new AppError("RUN_NOT_WAITING", {
            message: `run ${runId} is ${existing.status}, expected one of ${from.join(", ")}`,
            userMessage: `The run is ${existing.status.toLowerCase().replace("_", " ")}; that action does not apply.`,
          });
        }
        await appendEvents(tx, runId, events, at);
        const row = await tx.run.findUniqueOrThrow({ where: { id: runId } });
        if (audit) await writeAudit(tx, audit, row.workspaceId);
        if (state) {
          await insertEntries(tx, runId, row.entrySeq - state.entries.length + 1, state.entries);
          await tx.checkpoint.create({
            data: {
              runId,
              seq: row.stateSeq,
              step: newState!.state.step,
              state: state.head,
              entrySeq: row.entrySeq,
              createdAt: at,
            },
          });
        }
        if (row.runnableAt) await notifyInTransaction(tx, postgres, { runId });
        if (wakeRun) {
          const woken = await tx.run.updateMany({
            where: { id: wakeRun.runId, status: "WAITING_EVENT", waitingFor: wakeRun.waitingFor },
            data: { wakeAt: at, runnableAt: at },
          });
          otherWoken = woken.count > 0;
          if (otherWoken) await notifyInTransaction(tx, postgres, { runId: wakeRun.runId });
        }
        return (await toRunRecords(tx, [row]))[0];
      });
      if (record.leaseOwner === null && runnableAtOf(to, null, at)) wakeups.emit({ runId });
      if (otherWoken) wakeups.emit({ runId: wakeRun!.runId });
      return record;
    },
  };
}

/** A new run, its first checkpoint, events and audit row; null when its idempotency key is taken. */
type InsertRun = (run: NewRun, state: SplitState) => Promise<RunRow | null>;

function insertOnPostgres(d: Dialect): InsertRun {
  return async (run, state) => {
    // A new run is one statement, as a step's commit is: many started at once share their commits too.
    const [row] = await d.commits<RunRow & { notified?: number }>(
      postgresCreateRunStatement(run, state, d.now(), d.wallClock()),
    );
    if (!row) return null;
    delete row.notified;
    return row;
  };
}

function insertOnSqlite({ db, now }: Dialect): InsertRun {
  return async (run, state) => {
    if (run.idempotencyKey) {
      const first = await db.run.findUnique({
        where: { workspaceId_idempotencyKey: { workspaceId: run.workspaceId, idempotencyKey: run.idempotencyKey } },
        select: { id: true },
      });
      if (first) return null;
    }
    const at = now();
    try {
      return await db.$transaction(async (tx) => {
        const inserted = await tx.run.create({ data: runRow(run, state, at) });
        const checkpoint = {
          runId: run.id,
          seq: 1,
          step: run.state.step,
          state: state.head,
          entrySeq: state.entries.length,
        };
        await tx.checkpoint.create({ data: { ...checkpoint, createdAt: at } });
        await insertEntries(tx, run.id, 1, state.entries);
        await insertEvents(tx, run.id, 1, run.events, at);
        if (run.audit) await writeAudit(tx, run.audit, run.workspaceId);
        return inserted;
      });
    } catch (error) {
      if (run.idempotencyKey && isUniqueViolation(error)) return null;
      throw error;
    }
  };
}

/**
 * A new run as one statement on Postgres: the run, its first checkpoint and its first events, its audit
 * row and the NOTIFY that wakes workers — one round trip, no interactive transaction (a burst of new runs
 * would queue for the pool's connections and time out waiting to BEGIN). A run whose idempotency key is
 * already taken inserts nothing and returns no row (the caller reads the first one).
 */
function postgresCreateRunStatement(run: NewRun, state: SplitState, at: Date, wallClock: Date): Statement {
  const p = new pg.Params();
  const row: Row = { ...runRow(run, state, at), createdAt: wallClock, updatedAt: wallClock };

  const atTs = p.add(at, "timestamp(3)");
  const ctes = [
    `created AS (
      INSERT INTO "Run" (${Object.keys(row)
        .map((c) => `"${c}"`)
        .join(", ")})
      VALUES (${Object.entries(row)
        .map(([c, v]) => p.add(v, pg.columnType(c)))
        .join(", ")})
      ON CONFLICT ("workspaceId", "idempotencyKey") DO NOTHING
      RETURNING *)`,
    `checkpoint AS (
      INSERT INTO "Checkpoint" ("runId", "seq", "step", "state", "entrySeq", "createdAt")
      SELECT created."id", 1, ${p.add(run.state.step, "int")}, created."state", created."entrySeq", ${atTs} FROM created)`,
  ];
  if (state.entries.length > 0)
    ctes.push(`entries AS (${pg.insertEntries(p, state.entries, `created."id"`, "created", "0")})`);
  if (run.events.length > 0) {
    const rows = run.events.map((e) => ({ step: e.step, type: e.type, data: json(e.data) }));
    ctes.push(`events AS (${pg.insertEvents(p, rows, `created."id"`, "created", "0", atTs)})`);
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
