import type { Db } from "../../lib/db";
import { until } from "./until";

/**
 * Waits until the leases on these runs have lapsed, read from the store: a killed or frozen worker's
 * runs become claimable at their lease's expiry, and a claim made before then would find nothing.
 * Returns the rows last read.
 */
export function untilLeasesLapse(db: Db, runIds: string[]) {
  return until(
    () =>
      db.run.findMany({ where: { id: { in: runIds } }, select: { id: true, leaseOwner: true, leaseExpiresAt: true } }),
    {
      what: `the leases on ${runIds.length === 1 ? `run ${runIds[0]}` : `${runIds.length} runs`} lapse`,
      holds: (rows) =>
        rows.length === runIds.length &&
        rows.every(
          (r) => r.leaseOwner === null || r.leaseExpiresAt === null || r.leaseExpiresAt.getTime() < Date.now(),
        ),
    },
  );
}

/**
 * A killed worker's leases run out now instead of at their expiry: what waiting them out does,
 * without the wait. So the worker under test can hold a lease long enough that no stall of a loaded
 * machine lapses it before it reaches the fault point (a lapsed lease fences its step out, and the
 * point is never reached). Only for workers that are dead: a live holder would be fenced out too.
 */
export async function expireLeases(db: Db, runIds: string[]) {
  const past = new Date(Date.now() - 1);
  const { count } = await db.run.updateMany({
    where: { id: { in: runIds }, leaseOwner: { not: null } },
    data: { leaseExpiresAt: past, runnableAt: past },
  });
  if (count !== runIds.length)
    throw new Error(`expected ${runIds.length} leased runs to expire, found ${count} leased`);
}

/**
 * What a killed worker held, let go now: its runs' leases (expireLeases) and its claims on schedules
 * (lib/schedules/fire-schedules.ts), which would otherwise keep every other worker off them until they
 * ran out. Returns the runs it held. Only for a worker that is dead.
 */
export async function releaseDeadWorker(db: Db, owner: string): Promise<string[]> {
  const held = (await db.run.findMany({ where: { leaseOwner: owner }, select: { id: true } })).map((r) => r.id);
  if (held.length) await expireLeases(db, held);
  await db.schedule.updateMany({ where: { claimedBy: owner }, data: { claimedUntil: new Date(Date.now() - 1) } });
  return held;
}
