import { inWorkspace } from "@/lib/runtime/workspace";
import { writeAudit } from "@/lib/audit/audit-log";
import { databaseUrlOf, providerOfDb, type Db } from "@/lib/db";
import { AppError } from "@/lib/runtime/errors";
import { loadState, storedEntriesOf, type RunState } from "@/lib/runtime/state";
import type { Checkpoint, CommitResult, NewRun, RunFilter, RuntimeStore, StepCommit } from "@/lib/runtime/store";
import type { Logger, TraceEvent } from "@/lib/runtime/types";
import { groupCommits } from "./group-commit";
import { hotQuery, hotTransaction } from "./hot-path";
import { createLeaseStore, leaseLost } from "./leases";
import {
  commitStepStatement,
  createRunStatement,
  leaseHeldStatement,
  wakeIfSignalWaitingStatement,
  type CommitRow,
} from "./postgres-sql";
import { intentResult, intentRow, packetRow, parksOnEvent, runnableAtOf, wakeupOf, type Statement } from "./rows";
import { createPacketStore } from "./packets";
import { PERMISSIONS_EPOCH, createPermissionStore } from "./permissions";
import {
  isUniqueViolation,
  json,
  parse,
  toIntent,
  toListedRunRecord,
  toRunRecord,
  toRunRecords,
  type RunRow,
} from "./records";
import {
  NOTHING_STORED,
  insertEntries,
  joinState,
  loadStoredState,
  readEntries,
  splitState,
  type EntryRow,
  type NewEntry,
} from "./state-entries";
import { createSignalStore } from "./signals";
import * as sqlite from "./sqlite-sql";
import { appendEvents, insertEvents } from "./trace-events";
import { createWakeups, notifyInTransaction } from "./wakeups";

// The RuntimeStore over Prisma: runs, step commits, checkpoints, the trace and intents here; leases,
// packets, signals and permissions in their own files. The same code on SQLite and Postgres (one
// generated client each, identical model API). Fencing is a conditional update on (id, leaseOwner, leaseEpoch); event
// seq numbers come from an atomic increment of Run.eventSeq in the same transaction as the events.
// A step's commit is raw SQL on both databases, to skip Prisma's per-query compilation: one
// statement on Postgres (postgres-sql.ts, which also claims, renews and releases leases in one
// round trip each; commits ready together share a transaction, group-commit.ts), a few inside
// Prisma's transaction on SQLite (sqlite-sql.ts). Same rules.
// Every change that makes a run runnable wakes workers (wakeups.ts): listeners in this process after
// it commits, and on Postgres a NOTIFY sent by the change's own transaction.

export function createPrismaStore(db: Db, opts: { now?: () => Date; logger?: Logger } = {}): RuntimeStore {
  const now = opts.now ?? (() => new Date());
  const postgres = providerOfDb(db) === "postgres"; // which raw SQL to speak
  const query = hotQuery(db); // Postgres: straight to the pg pool; SQLite: Prisma's raw queries
  const transaction = hotTransaction(db);
  // Postgres: step commits ready at the same moment share one transaction (group-commit.ts).
  const commits = transaction ? groupCommits(query, transaction).query : query;
  // The wall clock, for Run.updatedAt in raw statements: what Prisma's @updatedAt writes (not the store's clock).
  const wallClock = () => new Date();
  const wakeups = createWakeups({ listenUrl: postgres ? databaseUrlOf(db) : undefined, logger: opts.logger });

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

  /** commitStep on SQLite: raw statements (sqlite-sql.ts) in one Prisma transaction; a throw rolls it all back. */
  async function commitStepSqlite(
    commit: StepCommit,
    state: { head: string; entries: NewEntry[] },
    at: Date,
  ): Promise<CommitResult & { woken: boolean; otherWoken: boolean }> {
    const { lease } = commit;
    return db.$transaction(async (tx) => {
      const run = (s: Statement) => tx.$executeRawUnsafe(s.sql, ...s.values);
      // The fence: only the current lease holder's write matches.
      const h = sqlite.head(commit, state, at, wallClock());
      const [head] = await tx.$queryRawUnsafe<Array<CommitResult & { entrySeq: number }>>(h.sql, ...h.values);
      if (!head) {
        // Asked inside the transaction: SQLite's one connection is ours until it ends.
        const held = sqlite.leaseHeld(lease);
        const epoch = async () => (await tx.epoch.findUnique({ where: { name: PERMISSIONS_EPOCH } }))?.value ?? 0;
        throw await whyNotWritten(
          commit,
          (await tx.$queryRawUnsafe<unknown[]>(held.sql, ...held.values)).length > 0,
          epoch,
        );
      }
      await run(sqlite.checkpoint(commit, at));
      for (const s of sqlite.entries(lease.runId, state.entries, head.entrySeq - state.entries.length + 1))
        await run(s);
      for (const s of sqlite.events(commit, head.eventSeq - commit.events.length + 1, at)) await run(s);
      if (commit.createIntent) await run(sqlite.insert("EffectIntent", intentRow(commit.createIntent, at)));
      if (commit.updateIntent)
        await run(sqlite.updateById("EffectIntent", commit.updateIntent.id, intentResult(commit.updateIntent, at)));
      if (commit.createPacket) {
        await run(sqlite.insert("DecisionPacket", packetRow(commit.createPacket, at)));
        // The run's workspace owns its packets (Postgres takes it from the head row in the same statement).
        await run({
          sql: `UPDATE "DecisionPacket" SET "workspaceId" = (SELECT "workspaceId" FROM "Run" WHERE "id" = ?) WHERE "id" = ?`,
          values: [lease.runId, commit.createPacket.id],
        });
      }
      if (commit.updatePacket && (await run(sqlite.packetCas(commit.updatePacket, at))) === 0)
        throw packetChanged(commit.updatePacket.id);
      if (commit.consumeSignalIds?.length) await run(sqlite.consumeSignals(commit.consumeSignalIds, at));
      const waitingFor = parksOnEvent(commit);
      const woken = waitingFor
        ? (await run(sqlite.wakeIfSignalWaiting(lease.runId, waitingFor, at, wallClock()))) > 0
        : false;
      const otherWoken = commit.wakeRun
        ? (await run(sqlite.wakeWaiting(commit.wakeRun.runId, commit.wakeRun.waitingFor, at, wallClock()))) > 0
        : false;
      return { stateSeq: head.stateSeq, eventSeq: head.eventSeq, woken, otherWoken };
    });
  }

  /** commitStep on Postgres: one statement (postgres-sql.ts), plus a read only when it wrote nothing. */
  async function commitStepPostgres(
    commit: StepCommit,
    state: { head: string; entries: NewEntry[] },
    at: Date,
  ): Promise<CommitResult & { woken: boolean; otherWoken: boolean }> {
    const { lease } = commit;
    const [row] = await commits<CommitRow>(commitStepStatement(commit, state, at, wallClock()));
    if (!row)
      throw await whyNotWritten(commit, (await query(leaseHeldStatement(lease))).length > 0, () =>
        store.permissionEpoch(),
      );
    const waitingFor = parksOnEvent(commit);
    let woken = row.woken;
    if (waitingFor && !woken) {
      // The commit stands; this closes the window of a signal delivered while it ran (see the statement).
      woken =
        (
          await query(
            wakeIfSignalWaitingStatement({
              runId: lease.runId,
              waitingFor,
              stateSeq: row.stateSeq,
              at,
              updatedAt: wallClock(),
            }),
          )
        ).length > 0;
    }
    return { stateSeq: row.stateSeq, eventSeq: row.eventSeq, woken, otherWoken: Boolean(row.otherWoken) };
  }

  const store: RuntimeStore = {
    async createRun(run: NewRun) {
      const state = splitState(run.state, NOTHING_STORED);
      // The record handed back holds the state as given, all of it now stored.
      const created = (row: RunRow) => ({
        run: { ...toRunRecord(row, []), state: run.state, storedEntries: storedEntriesOf(run.state) },
        created: true,
      });
      const existing = async (row: RunRow) => ({ run: (await toRunRecords(db, [row]))[0], created: false });
      if (postgres) {
        const [row] = await query<RunRow & { notified?: number }>(createRunStatement(run, state, now(), wallClock()));
        if (row) {
          delete row.notified;
          wakeups.emit({ runId: run.id });
          return created(row);
        }
        // The idempotency key was taken (now, or by a request racing this one): the first run stands.
        return existing(
          await db.run.findUniqueOrThrow({
            where: {
              workspaceId_idempotencyKey: { workspaceId: run.workspaceId, idempotencyKey: run.idempotencyKey! },
            },
          }),
        );
      }
      if (run.idempotencyKey) {
        const first = await db.run.findUnique({
          where: { workspaceId_idempotencyKey: { workspaceId: run.workspaceId, idempotencyKey: run.idempotencyKey } },
        });
        if (first) return existing(first);
      }
      const at = now();
      try {
        const row = await db.$transaction(async (tx) => {
          const inserted = await tx.run.create({
            data: {
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
            },
          });
          await tx.checkpoint.create({
            data: {
              runId: run.id,
              seq: 1,
              step: run.state.step,
              state: state.head,
              entrySeq: state.entries.length,
              createdAt: at,
            },
          });
          await insertEntries(tx, run.id, 1, state.entries);
          await insertEvents(tx, run.id, 1, run.events, at);
          if (run.audit) await inWorkspace(run.workspaceId, () => writeAudit(tx, run.audit!));
          return inserted;
        });
        wakeups.emit({ runId: run.id });
        return created(row);
      } catch (error) {
        if (run.idempotencyKey && isUniqueViolation(error))
          return existing(
            await db.run.findUniqueOrThrow({
              where: {
                workspaceId_idempotencyKey: { workspaceId: run.workspaceId, idempotencyKey: run.idempotencyKey },
              },
            }),
          );
        throw error;
      }
    },

    async getRun(id) {
      const row = await db.run.findUnique({ where: { id } });
      return row ? (await toRunRecords(db, [row]))[0] : null;
    },

    async findRuns(filter: RunFilter) {
      const rows = await db.run.findMany({
        where: {
          status: filter.status ? { in: filter.status } : undefined,
          agentSlug: filter.agentSlug,
          agentVersion: filter.agentVersion,
          spawnedByRunId: filter.spawnedByRunId,
        },
        orderBy: [{ createdAt: "desc" }, { id: "desc" }],
        take: filter.limit ?? 50,
        ...(filter.cursor ? { cursor: { id: filter.cursor }, skip: 1 } : {}),
      });
      return toRunRecords(db, rows, toListedRunRecord);
    },

    async commitStep(commit: StepCommit): Promise<CommitResult> {
      const at = now();
      const state = splitState(commit.state, commit.storedEntries);
      const { woken, otherWoken, ...result } = await (postgres
        ? commitStepPostgres(commit, state, at)
        : commitStepSqlite(commit, state, at));
      const wakeup = wakeupOf(commit, woken, at);
      if (wakeup) wakeups.emit(wakeup);
      if (otherWoken && commit.wakeRun) wakeups.emit({ runId: commit.wakeRun.runId });
      return result;
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
        if (audit) await writeAudit(tx, audit);
        const row = await tx.run.findUniqueOrThrow({ where: { id: runId } });
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

    async listEvents(runId, opts = {}) {
      const rows = await db.traceEvent.findMany({
        where: { runId, seq: { gt: opts.afterSeq ?? 0 } },
        orderBy: { seq: "asc" },
        take: opts.limit ?? 1000,
      });
      return rows.map((r): TraceEvent => ({
        runId: r.runId,
        seq: r.seq,
        step: r.step,
        type: r.type,
        data: parse(r.data) as Record<string, unknown>,
        at: r.at,
      }));
    },

    async listCheckpoints(runId) {
      const rows = await db.checkpoint.findMany({ where: { runId }, orderBy: { seq: "asc" } });
      // One read of the entries: each checkpoint's state has a prefix of them.
      const entries = (await readEntries(db, [{ runId, entrySeq: Math.max(0, ...rows.map((r) => r.entrySeq)) }])).get(
        runId,
      )!;
      return rows.map((row) => toCheckpoint(row, entries));
    },

    async getCheckpoint(runId, seq) {
      const row = await db.checkpoint.findUnique({ where: { runId_seq: { runId, seq } } });
      return row
        ? { seq: row.seq, step: row.step, state: await loadStoredState(db, runId, row), createdAt: row.createdAt }
        : null;
    },

    async getIntent(id) {
      const row = await db.effectIntent.findUnique({ where: { id } });
      return row ? toIntent(row) : null;
    },

    async listIntents(runId) {
      const rows = await db.effectIntent.findMany({
        where: { runId },
        orderBy: [{ step: "asc" }, { createdAt: "asc" }],
      });
      return rows.map(toIntent);
    },

    ...createLeaseStore(db, { postgres, now, wakeups, query }),
    ...createPacketStore(db, now, { postgres, wakeups, hot: query, transaction }),
    ...createSignalStore(db, { postgres, wakeups }),
    ...createPermissionStore(db, postgres ? query : null),

    async close() {
      await wakeups.close();
      await db.$disconnect();
    },
  };
  return store;
}

/** A checkpoint's state: its head with the run's entries 1..entrySeq (`entries` may hold more). */
function toCheckpoint(
  row: { seq: number; step: number; state: string; entrySeq: number; createdAt: Date },
  entries: EntryRow[],
): Checkpoint {
  const { raw } = joinState(
    row.state,
    entries.filter((e) => e.seq <= row.entrySeq),
  );
  return { seq: row.seq, step: row.step, state: loadState(raw) as RunState, createdAt: row.createdAt };
}

function packetChanged(packetId: string) {
  return new AppError("CONFLICT", {
    message: `packet ${packetId} changed concurrently`,
    userMessage: "The decision packet changed while the run was acting on it.",
  });
}
