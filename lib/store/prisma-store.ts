import { providerOfDb, type Db } from "@/lib/db";
import { AppError, isAppError } from "@/lib/runtime/errors";
import { loadState, type RunState } from "@/lib/runtime/state";
import type { CommitResult, NewRun, RunFilter, RuntimeStore, StepCommit } from "@/lib/runtime/store";
import type { Lease, TraceEvent } from "@/lib/runtime/types";
import {
  claimRunStatement, commitStepStatement, leaseHeldStatement, releaseLeaseStatement, renewLeaseStatement, wakeIfSignalWaitingStatement,
  type CommitRow,
} from "./postgres-sql";
import { ACTIVE_STATUSES, WAKEABLE_STATUSES, intentResult, intentRow, packetRow, parksOnEvent, type Statement } from "./rows";
import { createPacketStore } from "./packets";
import { createPermissionStore } from "./permissions";
import { isRecordNotFound, isUniqueViolation, json, parse, toIntent, toListedRunRecord, toRunRecord, type RunRow } from "./records";
import { createSignalStore } from "./signals";
import * as sqlite from "./sqlite-sql";
import { appendEvents, insertEvents } from "./trace-events";

// The RuntimeStore over Prisma: runs, leases, step commits, checkpoints, the trace and intents here;
// packets, signals and permissions in their own files. The same code on SQLite and Postgres (one
// generated client each, identical model API). Fencing is a conditional update on (id, leaseOwner, leaseEpoch); event
// seq numbers come from an atomic increment of Run.eventSeq in the same transaction as the events.
// A step's commit is raw SQL on both databases, to skip Prisma's per-query compilation: one
// statement on Postgres (postgres-sql.ts, which also claims, renews and releases leases in one
// round trip each), a few inside Prisma's transaction on SQLite (sqlite-sql.ts). Same rules.

/** Runs a worker may pick up now: free or expired lease, and either active or due to wake. */
function runnableWhere(now: Date) {
  return {
    AND: [
      { OR: [{ leaseOwner: null }, { leaseExpiresAt: { lt: now } }] },
      {
        OR: [
          { status: { in: ACTIVE_STATUSES } },
          { status: { in: WAKEABLE_STATUSES }, wakeAt: { lte: now } },
        ],
      },
    ],
  };
}

export function createPrismaStore(db: Db, opts: { now?: () => Date } = {}): RuntimeStore {
  const now = opts.now ?? (() => new Date());
  const postgres = providerOfDb(db) === "postgres"; // which raw SQL to speak
  const query = <T>(s: Statement) => db.$queryRawUnsafe<T[]>(s.sql, ...s.values);
  const execute = (s: Statement) => db.$executeRawUnsafe(s.sql, ...s.values);
  // The wall clock, for Run.updatedAt in raw statements: what Prisma's @updatedAt writes (not the store's clock).
  const wallClock = () => new Date();

  /** A run whose stored state cannot be loaded fails loudly instead of being reinterpreted or
   *  blocking the worker; its raw state stays in the row for a person to inspect. */
  async function quarantine(row: RunRow, lease: { owner: string; epoch: number }, why: string, at: Date) {
    await db.$transaction(async (tx) => {
      const { count } = await tx.run.updateMany({
        where: { id: row.id, leaseOwner: lease.owner, leaseEpoch: lease.epoch },
        data: { status: "FAILED", error: `unreadable state: ${why}`, leaseOwner: null, leaseExpiresAt: null },
      });
      if (count === 1) await appendEvents(tx, row.id, [{ type: "run.status", step: -1, data: { from: row.status, to: "FAILED", error: `unreadable state: ${why}` } }], at);
    });
  }

  /** commitStep on SQLite: raw statements (sqlite-sql.ts) in one Prisma transaction; a throw rolls it all back. */
  async function commitStepSqlite(commit: StepCommit, at: Date): Promise<CommitResult> {
    const { lease } = commit;
    return db.$transaction(async (tx) => {
      const run = (s: Statement) => tx.$executeRawUnsafe(s.sql, ...s.values);
      // The fence: only the current lease holder's write matches.
      const h = sqlite.head(commit, wallClock());
      const [head] = await tx.$queryRawUnsafe<CommitResult[]>(h.sql, ...h.values);
      if (!head) throw leaseLost(lease);
      await run(sqlite.checkpoint(commit, at));
      for (const s of sqlite.events(commit, head.eventSeq - commit.events.length + 1, at)) await run(s);
      if (commit.createIntent) await run(sqlite.insert("EffectIntent", intentRow(commit.createIntent, at)));
      if (commit.updateIntent) await run(sqlite.updateById("EffectIntent", commit.updateIntent.id, intentResult(commit.updateIntent, at)));
      if (commit.createPacket) await run(sqlite.insert("DecisionPacket", packetRow(commit.createPacket, at)));
      if (commit.updatePacket && (await run(sqlite.packetCas(commit.updatePacket, at))) === 0) throw packetChanged(commit.updatePacket.id);
      if (commit.consumeSignalIds?.length) await run(sqlite.consumeSignals(commit.consumeSignalIds, at));
      const waitingFor = parksOnEvent(commit);
      if (waitingFor) await run(sqlite.wakeIfSignalWaiting(lease.runId, waitingFor, at, wallClock()));
      return { stateSeq: head.stateSeq, eventSeq: head.eventSeq };
    });
  }

  /** commitStep on Postgres: one statement (postgres-sql.ts), plus a read only when it wrote nothing. */
  async function commitStepPostgres(commit: StepCommit, at: Date): Promise<CommitResult> {
    const { lease } = commit;
    const [row] = await query<CommitRow>(commitStepStatement(commit, at, wallClock()));
    if (!row) {
      // Nothing was written. Say why as the portable path does: the lease first, then the packet CAS.
      const [held] = await query(leaseHeldStatement(lease));
      if (held && commit.updatePacket) throw packetChanged(commit.updatePacket.id);
      throw leaseLost(lease);
    }
    const waitingFor = parksOnEvent(commit);
    if (waitingFor && !row.woken) {
      // The commit stands; this closes the window of a signal delivered while it ran (see the statement).
      await execute(wakeIfSignalWaitingStatement({ runId: lease.runId, waitingFor, stateSeq: row.stateSeq, at, updatedAt: wallClock() }));
    }
    return { stateSeq: row.stateSeq, eventSeq: row.eventSeq };
  }

  /** The claim of a row just leased to `owner`, or null when its state is unreadable (then quarantined). */
  async function claimOf(row: RunRow, owner: string, expiresAt: Date, at: Date) {
    const lease = { runId: row.id, owner, epoch: row.leaseEpoch, expiresAt };
    try {
      return { lease, run: toRunRecord(row) };
    } catch (error) {
      if (!isAppError(error, "INVALID_STATE")) throw error;
      await quarantine(row, lease, error.message, at);
      return null;
    }
  }

  const store: RuntimeStore = {
    async createRun(run: NewRun) {
      if (run.idempotencyKey) {
        const existing = await db.run.findUnique({ where: { idempotencyKey: run.idempotencyKey } });
        if (existing) return { run: toRunRecord(existing), created: false };
      }
      const at = now();
      try {
        const row = await db.$transaction(async (tx) => {
          const created = await tx.run.create({
            data: {
              id: run.id,
              agentSlug: run.agentSlug,
              agentVersion: run.agentVersion,
              status: "QUEUED",
              input: json(run.input),
              state: json(run.state),
              stateSeq: 1,
              eventSeq: run.events.length,
              idempotencyKey: run.idempotencyKey,
              startedBy: run.startedBy,
              parentRunId: run.parentRunId,
            },
          });
          await tx.checkpoint.create({ data: { runId: run.id, seq: 1, step: run.state.step, state: json(run.state), createdAt: at } });
          await insertEvents(tx, run.id, 1, run.events, at);
          return created;
        });
        return { run: toRunRecord(row), created: true };
      } catch (error) {
        if (run.idempotencyKey && isUniqueViolation(error)) {
          const existing = await db.run.findUniqueOrThrow({ where: { idempotencyKey: run.idempotencyKey } });
          return { run: toRunRecord(existing), created: false };
        }
        throw error;
      }
    },

    async getRun(id) {
      const row = await db.run.findUnique({ where: { id } });
      return row ? toRunRecord(row) : null;
    },

    async findRuns(filter: RunFilter) {
      const rows = await db.run.findMany({
        where: { status: filter.status ? { in: filter.status } : undefined, agentSlug: filter.agentSlug },
        orderBy: [{ createdAt: "desc" }, { id: "desc" }],
        take: filter.limit ?? 50,
        ...(filter.cursor ? { cursor: { id: filter.cursor }, skip: 1 } : {}),
      });
      return rows.map(toListedRunRecord);
    },

    async claimRun({ owner, now: at, leaseMs, runId }) {
      const expiresAt = new Date(at.getTime() + leaseMs);
      if (postgres) {
        // One statement picks, locks and leases the oldest runnable run (postgres-sql.ts).
        for (let attempt = 0; attempt < 8; attempt++) {
          const [row] = await query<RunRow>(claimRunStatement({ owner, now: at, expiresAt, runId, updatedAt: wallClock() }));
          if (!row) return null;
          const claim = await claimOf(row, owner, expiresAt, at);
          if (claim) return claim;
        }
        return null;
      }
      const candidates = await db.run.findMany({
        where: { ...runnableWhere(at), ...(runId ? { id: runId } : {}) },
        select: { id: true, leaseEpoch: true },
        orderBy: { updatedAt: "asc" },
        take: 8,
      });
      // Several workers may see the same candidates; the conditional update on the epoch lets one win.
      for (const candidate of candidates) {
        const row = await db.run
          .update({
            where: { id: candidate.id, leaseEpoch: candidate.leaseEpoch, ...runnableWhere(at) },
            data: { leaseOwner: owner, leaseEpoch: candidate.leaseEpoch + 1, leaseExpiresAt: expiresAt },
          })
          .catch((error) => {
            if (isRecordNotFound(error)) return null; // another worker won this one
            throw error;
          });
        const claim = row && (await claimOf(row, owner, expiresAt, at));
        if (claim) return claim;
      }
      return null;
    },

    async renewLease(lease, at, leaseMs) {
      const expiresAt = new Date(at.getTime() + leaseMs);
      const count = postgres
        ? await execute(renewLeaseStatement(lease, expiresAt, wallClock()))
        : (await db.run.updateMany({ where: { id: lease.runId, leaseOwner: lease.owner, leaseEpoch: lease.epoch }, data: { leaseExpiresAt: expiresAt } })).count;
      if (count === 0) throw leaseLost(lease);
      return { ...lease, expiresAt };
    },

    async releaseLease(lease) {
      if (postgres) {
        await execute(releaseLeaseStatement(lease, wallClock()));
        return;
      }
      await db.run.updateMany({
        where: { id: lease.runId, leaseOwner: lease.owner, leaseEpoch: lease.epoch },
        data: { leaseOwner: null, leaseExpiresAt: null },
      });
    },

    async commitStep(commit: StepCommit): Promise<CommitResult> {
      const at = now();
      return postgres ? commitStepPostgres(commit, at) : commitStepSqlite(commit, at);
    },

    async transitionRun({ runId, from, to, events, revokeLease, state, error }) {
      const at = now();
      return db.$transaction(async (tx) => {
        const { count } = await tx.run.updateMany({
          where: { id: runId, status: { in: from } },
          data: {
            status: to,
            wakeAt: null,
            waitingFor: null,
            ...(error !== undefined ? { error } : {}),
            ...(state ? { state: json(state), stateSeq: { increment: 1 } } : {}),
            ...(revokeLease ? { leaseOwner: null, leaseExpiresAt: null, leaseEpoch: { increment: 1 } } : {}),
          },
        });
        if (count === 0) {
          const existing = await tx.run.findUnique({ where: { id: runId }, select: { status: true } });
          if (!existing) throw new AppError("NOT_FOUND", { message: `run ${runId} not found`, userMessage: "That run does not exist." });
          throw new AppError("RUN_NOT_WAITING", {
            message: `run ${runId} is ${existing.status}, expected one of ${from.join(", ")}`,
            userMessage: `The run is ${existing.status.toLowerCase().replace("_", " ")}; that action does not apply.`,
          });
        }
        await appendEvents(tx, runId, events, at);
        const row = await tx.run.findUniqueOrThrow({ where: { id: runId } });
        if (state) await tx.checkpoint.create({ data: { runId, seq: row.stateSeq, step: state.step, state: json(state), createdAt: at } });
        return toRunRecord(row);
      });
    },

    async listEvents(runId, opts = {}) {
      const rows = await db.traceEvent.findMany({
        where: { runId, seq: { gt: opts.afterSeq ?? 0 } },
        orderBy: { seq: "asc" },
        take: opts.limit ?? 1000,
      });
      return rows.map((r): TraceEvent => ({ runId: r.runId, seq: r.seq, step: r.step, type: r.type, data: parse(r.data) as Record<string, unknown>, at: r.at }));
    },

    async listCheckpoints(runId) {
      const rows = await db.checkpoint.findMany({ where: { runId }, orderBy: { seq: "asc" } });
      return rows.map((r) => ({ seq: r.seq, step: r.step, state: loadState(r.state) as RunState, createdAt: r.createdAt }));
    },

    async getIntent(id) {
      const row = await db.effectIntent.findUnique({ where: { id } });
      return row ? toIntent(row) : null;
    },

    async listIntents(runId) {
      const rows = await db.effectIntent.findMany({ where: { runId }, orderBy: [{ step: "asc" }, { createdAt: "asc" }] });
      return rows.map(toIntent);
    },

    ...createPacketStore(db, now),
    ...createSignalStore(db),
    ...createPermissionStore(db),

    async close() {
      await db.$disconnect();
    },
  };
  return store;
}

function leaseLost(lease: Lease) {
  return new AppError("LEASE_LOST", {
    message: `worker ${lease.owner} no longer holds run ${lease.runId} (epoch ${lease.epoch})`,
    userMessage: "Another worker took over this run.",
  });
}

function packetChanged(packetId: string) {
  return new AppError("CONFLICT", { message: `packet ${packetId} changed concurrently`, userMessage: "The decision packet changed while the run was acting on it." });
}
