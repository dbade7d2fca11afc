import { AppError, isAppError } from "@/lib/runtime/errors";
import type { Claim, RuntimeStore } from "@/lib/runtime/store";
import type { Lease } from "@/lib/runtime/types";
import type { Dialect } from "./dialect";
import * as pg from "./postgres-sql";
import { toRunRecord, type RunRow } from "./records";
import { ACTIVE_STATUSES, WAKEABLE_STATUSES, type Statement } from "./rows";
import * as sqlite from "./sqlite-sql";
import { readEntries } from "./state-entries";
import { appendEvents } from "./trace-events";
import { notifySql } from "./wakeups";

// Leases in the store: claim (one, named, or a batch), one heartbeat for a worker's whole batch,
// release, and when the next run comes due. Every claim makes the lease's expiry the run's
// runnableAt, so a run held by a worker that died is claimable again exactly when its lease runs
// out, by the same index range as any other runnable run.

type LeaseStore = Pick<
  RuntimeStore,
  "claimRun" | "claimRuns" | "renewLeases" | "releaseLease" | "nextRunnableAt" | "onRunnable"
>;

type ClaimArgs = {
  owner: string;
  now: Date;
  expiresAt: Date;
  limit: number;
  runId?: string;
  exclude?: string[];
  updatedAt: Date;
};

/** The lease statements, one set per database: the same rules, each in its own SQL. */
type LeaseSql = {
  /** Postgres returns the whole rows leased; SQLite the ids (read back through Prisma). */
  claimRuns(o: ClaimArgs): Statement;
  /** The ids returned are the leases that still held. */
  renewLeases(owner: string, leases: Lease[], expiresAt: Date, updatedAt: Date): Statement;
  /** Returns the run's status when the lease held. */
  releaseLease(lease: Lease, at: Date, updatedAt: Date): Statement;
  nextRunnableAt(owner: string, after: Date): Statement;
  /** Does the lease still hold? (Only asked after a commit wrote nothing, to say why.) */
  leaseHeld(lease: Lease): Statement;
};

const POSTGRES: LeaseSql = {
  /**
   * Claim up to `limit` runnable runs, oldest runnableAt first (the Run_runnableAt_idx range): bump
   * each epoch, set the lease, and make the lease's expiry the run's runnableAt.
   * A batch skips rows another transaction holds locked (SKIP LOCKED), and the runs in `exclude` (the
   * claimer is still driving them; an empty list keeps the statement's text, so its prepared plan, the same).
   * Many workers claim side by side without queueing behind each other, and a run skipped now is
   * claimed on the next round. A named run waits for the lock instead (FOR UPDATE), then READ
   * COMMITTED re-checks it: a run that is only being written by someone else (a signal's event) is not
   * reported as unclaimable.
   */
  claimRuns(o) {
    const p = new pg.Params();
    const now = p.add(o.now, "timestamp(3)");
    const expiresAt = p.add(o.expiresAt, "timestamp(3)");
    const sql = `
    WITH next AS (
      SELECT "id" FROM "Run"
      WHERE "runnableAt" <= ${now} AND ("leaseOwner" IS NULL OR "leaseExpiresAt" < ${now})
        AND ("status" = ANY(${p.add(ACTIVE_STATUSES, "text[]")})
             OR ("status" = ANY(${p.add(WAKEABLE_STATUSES, "text[]")}) AND "wakeAt" <= ${now}))
        ${o.runId ? `AND "id" = ${p.add(o.runId, "text")}` : `AND NOT ("id" = ANY(${p.add(o.exclude ?? [], "text[]")}))`}
      ORDER BY "runnableAt" ASC
      LIMIT ${p.add(o.limit, "int")}
      FOR UPDATE ${o.runId ? "" : "SKIP LOCKED"}
    )
    UPDATE "Run" SET
      "leaseOwner" = ${p.add(o.owner, "text")},
      "leaseEpoch" = "Run"."leaseEpoch" + 1,
      "leaseExpiresAt" = ${expiresAt},
      "runnableAt" = ${expiresAt},
      "updatedAt" = ${p.add(o.updatedAt, "timestamp(3)")}
    FROM next WHERE "Run"."id" = next."id"
    RETURNING "Run".*`;
    return { sql, values: p.values };
  },

  renewLeases(owner, leases, expiresAt, updatedAt) {
    const p = new pg.Params();
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
  },

  /** Runnable at once if it still has work (and other workers are told), else at its timer. */
  releaseLease(lease, at, updatedAt) {
    const p = new pg.Params();
    const atTs = p.add(at, "timestamp(3)");
    const active = p.add(ACTIVE_STATUSES, "text[]");
    const sql = `
    WITH released AS (
      UPDATE "Run" SET "leaseOwner" = NULL, "leaseExpiresAt" = NULL, "updatedAt" = ${p.add(updatedAt, "timestamp(3)")},
        "runnableAt" = CASE WHEN "status" = ANY(${active}) THEN ${atTs}
                            WHEN "status" = ANY(${p.add(WAKEABLE_STATUSES, "text[]")}) THEN "wakeAt" ELSE NULL END
      WHERE ${pg.fence(p, lease)}
      RETURNING "id", "status")
    SELECT "status", CASE WHEN "status" = ANY(${active}) THEN ${notifySql(`"id"`)} ELSE 0 END AS "notified" FROM released`;
    return { sql, values: p.values };
  },

  nextRunnableAt(owner, after) {
    const p = new pg.Params();
    const sql = `SELECT min("runnableAt") AS "at" FROM "Run" WHERE "runnableAt" > ${p.add(after, "timestamp(3)")}
    AND ("leaseOwner" IS NULL OR "leaseOwner" <> ${p.add(owner, "text")})`;
    return { sql, values: p.values };
  },

  leaseHeld(lease) {
    const p = new pg.Params();
    return { sql: `SELECT 1 AS "held" FROM "Run" WHERE ${pg.fence(p, lease)}`, values: p.values };
  },
};

/** SQLite: the same statements for one writer at a time (no locks to skip). */
const SQLITE: LeaseSql = {
  claimRuns(o) {
    const { now } = o;
    const exclude = o.runId ? [] : (o.exclude ?? []);
    return {
      sql: `UPDATE "Run" SET "leaseOwner" = ?, "leaseEpoch" = "leaseEpoch" + 1, "leaseExpiresAt" = ?, "runnableAt" = ?, "updatedAt" = ?
      WHERE "id" IN (
        SELECT "id" FROM "Run"
        WHERE "runnableAt" <= ? AND ("leaseOwner" IS NULL OR "leaseExpiresAt" < ?)
          AND ("status" IN ${sqlite.inList(ACTIVE_STATUSES)} OR ("status" IN ${sqlite.inList(WAKEABLE_STATUSES)} AND "wakeAt" <= ?))
          ${o.runId ? `AND "id" = ?` : ""}
          ${exclude.length ? `AND "id" NOT IN ${sqlite.inList(exclude)}` : ""}
        ORDER BY "runnableAt" ASC LIMIT ?)
      RETURNING "id"`,
      values: [
        o.owner,
        o.expiresAt,
        o.expiresAt,
        o.updatedAt,
        now,
        now,
        ...ACTIVE_STATUSES,
        ...WAKEABLE_STATUSES,
        now,
        ...(o.runId ? [o.runId] : []),
        ...exclude,
        o.limit,
      ],
    };
  },

  renewLeases(owner, leases, expiresAt, updatedAt) {
    return {
      sql: `UPDATE "Run" SET "leaseExpiresAt" = ?, "runnableAt" = ?, "updatedAt" = ?
      WHERE "leaseOwner" = ? AND ("id", "leaseEpoch") IN (VALUES ${leases.map(() => "(?, ?)").join(", ")}) RETURNING "id"`,
      values: [expiresAt, expiresAt, updatedAt, owner, ...leases.flatMap((l) => [l.runId, l.epoch])],
    };
  },

  releaseLease(lease, at, updatedAt) {
    return {
      sql: `UPDATE "Run" SET "leaseOwner" = NULL, "leaseExpiresAt" = NULL, "updatedAt" = ?,
        "runnableAt" = CASE WHEN "status" IN ${sqlite.inList(ACTIVE_STATUSES)} THEN ? WHEN "status" IN ${sqlite.inList(WAKEABLE_STATUSES)} THEN "wakeAt" ELSE NULL END
      WHERE ${sqlite.fence} RETURNING "status"`,
      values: [updatedAt, ...ACTIVE_STATUSES, at, ...WAKEABLE_STATUSES, ...sqlite.fenceValues(lease)],
    };
  },

  nextRunnableAt(owner, after) {
    return {
      sql: `SELECT min("runnableAt") AS "at" FROM "Run" WHERE "runnableAt" > ? AND ("leaseOwner" IS NULL OR "leaseOwner" <> ?)`,
      values: [after, owner],
    };
  },

  leaseHeld(lease) {
    return { sql: `SELECT 1 AS "held" FROM "Run" WHERE ${sqlite.fence}`, values: sqlite.fenceValues(lease) };
  },
};

export const leaseSql = (d: Pick<Dialect, "name">): LeaseSql => (d.name === "postgres" ? POSTGRES : SQLITE);

export function createLeaseStore(d: Dialect): LeaseStore {
  const { db, now, wallClock, wakeups, query } = d;
  const sql = leaseSql(d);

  /** The rows just leased: Postgres's statement returns them; SQLite's returns ids, read back here. */
  const claimRows =
    d.name === "postgres"
      ? (args: ClaimArgs) => query<RunRow>(sql.claimRuns(args))
      : async (args: ClaimArgs) => {
          const ids = (await query<{ id: string }>(sql.claimRuns(args))).map((r) => r.id);
          return ids.length === 0 ? [] : db.run.findMany({ where: { id: { in: ids } } });
        };

  /** A run whose stored state cannot be loaded fails loudly instead of being reinterpreted or
   *  blocking the worker; its raw state stays in the row for a person to inspect. */
  async function quarantine(row: RunRow, lease: { owner: string; epoch: number }, why: string, at: Date) {
    await db.$transaction(async (tx) => {
      const { count } = await tx.run.updateMany({
        where: { id: row.id, leaseOwner: lease.owner, leaseEpoch: lease.epoch },
        data: {
          status: "FAILED",
          error: `unreadable state: ${why}`,
          leaseOwner: null,
          leaseExpiresAt: null,
          runnableAt: null,
        },
      });
      if (count === 1) {
        const event = { from: row.status, to: "FAILED", error: `unreadable state: ${why}` };
        await appendEvents(tx, row.id, [{ type: "run.status", step: -1, data: event }], at);
      }
    });
  }

  /** The claims of rows just leased to `owner`; a row whose state is unreadable is quarantined instead. */
  async function claimsOf(rows: RunRow[], owner: string, at: Date): Promise<Claim[]> {
    const claims: Claim[] = [];
    const entries = await readEntries(
      db,
      rows.map((r) => ({ runId: r.id, entrySeq: r.entrySeq })),
      d.name === "postgres" ? query : undefined,
    );
    for (const row of rows) {
      if (row.leaseOwner !== owner || !row.leaseExpiresAt) continue; // taken back (cancelled) in between
      const lease = { runId: row.id, owner, epoch: row.leaseEpoch, expiresAt: row.leaseExpiresAt };
      try {
        claims.push({ lease, run: toRunRecord(row, entries.get(row.id)!) });
      } catch (error) {
        if (!isAppError(error, "INVALID_STATE")) throw error;
        await quarantine(row, lease, error.message, at);
      }
    }
    return claims;
  }

  /** Lease up to `limit` runs; `leased` counts rows leased, claims only the readable ones. */
  async function claim(o: {
    owner: string;
    now: Date;
    leaseMs: number;
    limit: number;
    runId?: string;
    exclude?: string[];
  }): Promise<{ claims: Claim[]; leased: number }> {
    const rows = await claimRows({ ...o, expiresAt: new Date(o.now.getTime() + o.leaseMs), updatedAt: wallClock() });
    return { claims: await claimsOf(rows, o.owner, o.now), leased: rows.length };
  }

  return {
    async claimRun({ owner, now: at, leaseMs, runId }) {
      // A quarantined candidate is not a claim: try the next one (a named run has no next one).
      for (let attempt = 0; attempt < 8; attempt++) {
        const { claims, leased } = await claim({ owner, now: at, leaseMs, limit: 1, runId });
        if (claims[0] || leased === 0 || runId) return claims[0] ?? null;
      }
      return null;
    },

    claimRuns: async ({ owner, now: at, leaseMs, limit, exclude }) =>
      (await claim({ owner, now: at, leaseMs, limit, exclude })).claims,

    async renewLeases(owner, leases, at, leaseMs) {
      if (leases.length === 0) return [];
      const expiresAt = new Date(at.getTime() + leaseMs);
      const held = new Set(
        (await query<{ id: string }>(sql.renewLeases(owner, leases, expiresAt, wallClock()))).map((r) => r.id),
      );
      return leases.filter((l) => held.has(l.runId)).map((l) => ({ ...l, expiresAt }));
    },

    async releaseLease(lease: Lease) {
      const [row] = await query<{ status: string }>(sql.releaseLease(lease, now(), wallClock()));
      if (row && ACTIVE_STATUSES.includes(row.status)) wakeups.emit({ runId: lease.runId });
    },

    async nextRunnableAt({ owner, after }) {
      const [row] = await query<{ at: unknown }>(sql.nextRunnableAt(owner, after));
      return row?.at ? new Date(row.at as string) : null;
    },

    onRunnable: (listener) => wakeups.subscribe(listener),
  };
}

export function leaseLost(lease: Lease) {
  return new AppError("LEASE_LOST", {
    message: `worker ${lease.owner} no longer holds run ${lease.runId} (epoch ${lease.epoch})`,
    userMessage: "Another worker took over this run.",
  });
}
