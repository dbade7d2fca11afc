import type { Db } from "@/lib/db";
import { AppError, isAppError } from "@/lib/runtime/errors";
import type { Claim, RuntimeStore } from "@/lib/runtime/store";
import type { Lease } from "@/lib/runtime/types";
import {
  claimRunsStatement,
  nextRunnableAtStatement,
  releaseLeaseStatement,
  renewLeasesStatement,
} from "./postgres-sql";
import { toRunRecord, type RunRow } from "./records";
import { readEntries } from "./state-entries";
import type { HotQuery } from "./hot-path";
import { ACTIVE_STATUSES } from "./rows";
import * as sqlite from "./sqlite-sql";
import { appendEvents } from "./trace-events";
import type { Wakeups } from "./wakeups";

// Leases in the store: claim (one, named, or a batch), one heartbeat for a worker's whole batch,
// release, and when the next run comes due. Every claim makes the lease's expiry the run's
// runnableAt, so a run held by a worker that died is claimable again exactly when its lease runs
// out, by the same index range as any other runnable run.

type LeaseStore = Pick<
  RuntimeStore,
  "claimRun" | "claimRuns" | "renewLeases" | "releaseLease" | "nextRunnableAt" | "onRunnable"
>;

export function createLeaseStore(
  db: Db,
  opts: { postgres: boolean; now: () => Date; wakeups: Wakeups; query: HotQuery },
): LeaseStore {
  const { postgres, now, wakeups, query } = opts;
  const wallClock = () => new Date(); // Run.updatedAt, as Prisma's @updatedAt writes it

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
      if (count === 1)
        await appendEvents(
          tx,
          row.id,
          [
            {
              type: "run.status",
              step: -1,
              data: { from: row.status, to: "FAILED", error: `unreadable state: ${why}` },
            },
          ],
          at,
        );
    });
  }

  /** The claims of rows just leased to `owner`; a row whose state is unreadable is quarantined instead. */
  async function claimsOf(rows: RunRow[], owner: string, at: Date): Promise<Claim[]> {
    const claims: Claim[] = [];
    const entries = await readEntries(
      db,
      rows.map((r) => ({ runId: r.id, entrySeq: r.entrySeq })),
      postgres ? query : undefined,
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
    const args = { ...o, expiresAt: new Date(o.now.getTime() + o.leaseMs), updatedAt: wallClock() };
    if (postgres) {
      const rows = await query<RunRow>(claimRunsStatement(args));
      return { claims: await claimsOf(rows, o.owner, o.now), leased: rows.length };
    }
    const ids = (await query<{ id: string }>(sqlite.claimRuns(args))).map((r) => r.id);
    if (ids.length === 0) return { claims: [], leased: 0 };
    const rows = await db.run.findMany({ where: { id: { in: ids } } });
    return { claims: await claimsOf(rows, o.owner, o.now), leased: ids.length };
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
      const statement = postgres
        ? renewLeasesStatement(owner, leases, expiresAt, wallClock())
        : sqlite.renewLeases(owner, leases, expiresAt, wallClock());
      const held = new Set((await query<{ id: string }>(statement)).map((r) => r.id));
      return leases.filter((l) => held.has(l.runId)).map((l) => ({ ...l, expiresAt }));
    },

    async releaseLease(lease: Lease) {
      const at = now();
      const [row] = await query<{ status: string }>(
        postgres ? releaseLeaseStatement(lease, at, wallClock()) : sqlite.releaseLease(lease, at, wallClock()),
      );
      if (row && ACTIVE_STATUSES.includes(row.status)) wakeups.emit({ runId: lease.runId });
    },

    async nextRunnableAt({ owner, after }) {
      const [row] = await query<{ at: unknown }>(
        postgres ? nextRunnableAtStatement(owner, after) : sqlite.nextRunnableAt(owner, after),
      );
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
