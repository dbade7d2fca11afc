import type { Db } from "../../lib/db";
import { until } from "./until";

/**
 * Waits until the leases on these runs have lapsed, read from the store: a killed or frozen worker's
 * runs become claimable at their lease's expiry, and a claim made before then would find nothing.
 * Returns the rows last read.
 */
export function untilLeasesLapse(db: Db, runIds: string[]) {
  return until(() => db.run.findMany({ where: { id: { in: runIds } }, select: { id: true, leaseOwner: true, leaseExpiresAt: true } }), {
    what: `the leases on ${runIds.length === 1 ? `run ${runIds[0]}` : `${runIds.length} runs`} lapse`,
    holds: (rows) => rows.length === runIds.length && rows.every((r) => r.leaseOwner === null || r.leaseExpiresAt === null || r.leaseExpiresAt.getTime() < Date.now()),
  });
}
