// The numbers behind GET /api/metrics, counted by the database on every scrape: the app may run several
// processes, so counts kept in memory would each see only their own share. Each is one GROUP BY written for
// an index range — the runs not yet ended, the pending packets, the decisions of a window — rather than a
// scan of every run, event or intent ever written. The step durations live in ./step-durations.ts.
import type { Db } from "@/lib/db";
import { hotQuery } from "@/lib/store/hot-path";
import { bucketColumns, bucketsOf, dialectOf, NOT_ENDED, num, Params, sqlList, windowRunsSql } from "./sql";

type Row = Record<string, unknown>;
const run = (db: Db, sql: string, p: Params) => hotQuery(db)<Row>({ sql, values: p.values });

export type RunCount = { status: string; agent: string; count: number };

/** Runs not yet ended, by status and agent (the Run (status, …) indexes narrow it to them). */
export async function countActiveRuns(db: Db): Promise<RunCount[]> {
  const p = new Params(dialectOf(db));
  const rows = await run(
    db,
    `SELECT "status", "agentSlug" AS agent, COUNT(*) AS n FROM "Run" WHERE "status" IN (${sqlList(NOT_ENDED)}) GROUP BY "status", "agentSlug"`,
    p,
  );
  return rows.map((r) => ({ status: String(r.status), agent: String(r.agent), count: num(r.n) }));
}

/** Runs created since `since`, by their status now and agent (the Run (createdAt) index). */
export async function countRunsCreatedSince(db: Db, since: Date): Promise<RunCount[]> {
  const p = new Params(dialectOf(db));
  const rows = await run(
    db,
    `SELECT "status", "agentSlug" AS agent, COUNT(*) AS n FROM "Run" WHERE "createdAt" >= ${p.add(since)} GROUP BY "status", "agentSlug"`,
    p,
  );
  return rows.map((r) => ({ status: String(r.status), agent: String(r.agent), count: num(r.n) }));
}

export type LeaseCount = { owner: string; held: number; expired: number };

/**
 * Leases on runs not yet ended, by owner: still held, or expired and not yet taken over (a dead worker's).
 * A lease is its owner and expiry together (set by a claim, cleared by a release): the Run (status,
 * leaseExpiresAt) index finds the leased runs without reading the others.
 */
export async function countLeases(db: Db, now: Date): Promise<LeaseCount[]> {
  const p = new Params(dialectOf(db));
  const rows = await run(
    db,
    `SELECT "leaseOwner" AS owner,
      SUM(CASE WHEN "leaseExpiresAt" > ${p.add(now)} THEN 1 ELSE 0 END) AS held,
      SUM(CASE WHEN "leaseExpiresAt" > ${p.add(now)} THEN 0 ELSE 1 END) AS expired
    FROM "Run" WHERE "status" IN (${sqlList(NOT_ENDED)}) AND "leaseExpiresAt" IS NOT NULL AND "leaseOwner" IS NOT NULL GROUP BY "leaseOwner"`,
    p,
  );
  return rows.map((r) => ({ owner: String(r.owner), held: num(r.held), expired: num(r.expired) }));
}

/** Age bands of pending packets, youngest first: [label, the band's upper bound in seconds]. */
export const PENDING_AGE_BANDS = [
  ["under_5m", 300],
  ["5m_to_1h", 3_600],
  ["1h_to_24h", 86_400],
  ["over_24h", Infinity],
] as const;

export type PendingQueue = { queue: string; bands: number[]; oldestAgeSeconds: number };

/** Pending packets per queue, in age bands, with the oldest one's age (the (status, …) indexes). */
export async function findPendingPackets(db: Db, now: Date): Promise<PendingQueue[]> {
  const d = dialectOf(db);
  const p = new Params(d);
  const bands = PENDING_AGE_BANDS.map(([, upper], i) => {
    const lower = i === 0 ? null : PENDING_AGE_BANDS[i - 1][1];
    const younger = Number.isFinite(upper) ? `"createdAt" > ${p.add(new Date(now.getTime() - upper * 1000))}` : "1 = 1";
    const older = lower === null ? "1 = 1" : `"createdAt" <= ${p.add(new Date(now.getTime() - lower * 1000))}`;
    return `SUM(CASE WHEN ${younger} AND ${older} THEN 1 ELSE 0 END) AS band${i}`;
  });
  const rows = await run(
    db,
    `SELECT "queue", ${bands.join(", ")}, MIN(${d.epochSeconds(`"createdAt"`)}) AS oldest
    FROM "DecisionPacket" WHERE "status" = 'PENDING' GROUP BY "queue" ORDER BY "queue"`,
    p,
  );
  return rows.map((r) => ({
    queue: String(r.queue),
    bands: PENDING_AGE_BANDS.map((_, i) => num(r[`band${i}`])),
    oldestAgeSeconds: Math.max(0, now.getTime() / 1000 - num(r.oldest)),
  }));
}

export const DECISION_BOUNDS = [
  10, 60, 300, 900, 1_800, 3_600, 7_200, 14_400, 28_800, 86_400, 259_200, 604_800,
] as const;

export type DecisionLatency = { queue: string; status: string; buckets: number[]; count: number; sum: number };

/** decidedAt − createdAt of the packets decided since `since`, by queue and outcome (the (decidedAt, id) index). */
export async function findDecisionLatencies(db: Db, since: Date): Promise<DecisionLatency[]> {
  const d = dialectOf(db);
  const p = new Params(d);
  // MATERIALIZED: read the window through the decidedAt index first; left to itself, SQLite walks the
  // (status, queue) index for the GROUP BY's order and reads every decided packet there is.
  const rows = await run(
    db,
    `WITH decided AS MATERIALIZED (
      SELECT "queue", "status", ${d.epochSeconds(`"decidedAt"`)} - ${d.epochSeconds(`"createdAt"`)} AS s
      FROM "DecisionPacket" WHERE "decidedAt" >= ${p.add(since)})
    SELECT "queue", "status", COUNT(*) AS n, SUM(s) AS total, ${bucketColumns("s", DECISION_BOUNDS)}
    FROM decided GROUP BY "queue", "status" ORDER BY "queue", "status"`,
    p,
  );
  return rows.map((r) => ({
    queue: String(r.queue),
    status: String(r.status),
    buckets: bucketsOf(r, DECISION_BOUNDS),
    count: num(r.n),
    sum: num(r.total),
  }));
}

export type EffectCount = { tool: string; status: string; count: number };

/**
 * Effect intents by tool and status: those created since `since` (of the runs created in the window, or not
 * yet ended and changed in it), and every older one still in doubt (PENDING, UNKNOWN) of a run not yet
 * ended — probed through the EffectIntent (runId, status) index, run by run (while intents are few and
 * seldom in doubt, Postgres may find reading them all cheaper: its planner's choice).
 */
export async function countEffects(db: Db, since: Date): Promise<EffectCount[]> {
  const p = new Params(dialectOf(db));
  const runs = windowRunsSql(p, since, { changedWithin: true });
  const rows = await run(
    db,
    `SELECT "tool", "status", COUNT(*) AS n FROM (
      SELECT "tool", "status" FROM "EffectIntent" WHERE "runId" IN (SELECT "id" FROM (${runs}) runs) AND "createdAt" >= ${p.add(since)}
      UNION ALL
      SELECT "tool", "status" FROM "EffectIntent" WHERE "runId" IN (SELECT "id" FROM "Run" WHERE "status" IN (${sqlList(NOT_ENDED)}))
        AND "status" IN ('PENDING', 'UNKNOWN') AND "createdAt" < ${p.add(since)}) intents
    GROUP BY "tool", "status" ORDER BY "tool", "status"`,
    p,
  );
  return rows.map((r) => ({ tool: String(r.tool), status: String(r.status), count: num(r.n) }));
}
