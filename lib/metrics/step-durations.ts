// How long steps take, from what the store keeps of each one: every step commit writes a checkpoint, and
// its trace events, at the same instant (the store's clock, lib/store). The time between two consecutive
// commits of a run is what a worker spent on the step between them (the model's decision, tool calls, the
// commit) — but only while the worker held the run. Across a park (an approval, a signal, a timer) or a
// queue the gap is waiting, not work; so a gap counts only when the run was RUNNING after the earlier
// commit: the last run.status event at or before it said "to RUNNING" (every transition into RUNNING is a
// worker's commit, which writes that event). The first commit after a claim is not measured: when the
// claim happened is not stored. Commits in the same millisecond are one instant (one sample). A worker
// that died mid-step and whose run was taken over after its lease expired shows as one long step.
//
// One ordered stream per run: its commit instants and its run.status events, a transition sorting before
// a commit of the same instant (it is that commit's own). The status after each instant is carried forward
// from the last transition (a running count of transitions numbers the groups; the group's one transition
// names its status), which SQLite and Postgres both do with window functions.
//
// Bounded: the runs created in the window, or not yet ended and changed in it (index ranges on Run), their
// checkpoints (by their primary key) and their run.status events; commits since `since` only. A run created
// before the window that ended within it is not read (no index finds it): its last steps are missing.
import type { Db } from "@/lib/db";
import { hotQuery } from "@/lib/store/hot-path";
import { bucketColumns, bucketsOf, dialectOf, num, Params, windowRunsSql } from "./sql";

export const STEP_BOUNDS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300] as const;

export type StepDurations = { agent: string; commits: number; buckets: number[]; count: number; sum: number };

/** Per agent: step commits in the window, and the durations of the ones made under a held lease. */
export async function findStepDurations(db: Db, since: Date): Promise<StepDurations[]> {
  const d = dialectOf(db);
  const p = new Params(d);
  const runs = windowRunsSql(p, since, { changedWithin: true });
  const sinceSeconds = p.add(since.getTime() / 1000);
  const sql = `WITH runs AS (${runs}),
    instants AS (
      SELECT c."runId", ${d.epochSeconds(`c."createdAt"`)} AS at_s, SUM(CASE WHEN c."seq" > 1 THEN 1 ELSE 0 END) AS commits
      FROM "Checkpoint" c WHERE c."runId" IN (SELECT "id" FROM runs) GROUP BY c."runId", c."createdAt"),
    stream AS (
      SELECT "runId", at_s, 1 AS kind, 0 AS seq, NULL AS to_status, commits FROM instants
      UNION ALL
      SELECT e."runId", ${d.epochSeconds(`e."at"`)}, 0, e."seq", ${d.jsonText(`e."data"`, "to")}, 0
      FROM "TraceEvent" e WHERE e."runId" IN (SELECT "id" FROM runs) AND e."type" = 'run.status'),
    grouped AS (
      SELECT "runId", at_s, kind, to_status, commits,
        COUNT(to_status) OVER (PARTITION BY "runId" ORDER BY at_s, kind, seq ROWS UNBOUNDED PRECEDING) AS grp
      FROM stream),
    carried AS (
      SELECT "runId", at_s, kind, commits, MAX(to_status) OVER (PARTITION BY "runId", grp) AS status_after FROM grouped),
    steps AS (
      SELECT "runId", at_s, commits,
        at_s - LAG(at_s) OVER (PARTITION BY "runId" ORDER BY at_s) AS seconds,
        LAG(status_after) OVER (PARTITION BY "runId" ORDER BY at_s) AS status_before
      FROM carried WHERE kind = 1),
    measured AS (
      SELECT "runId", commits, CASE WHEN status_before = 'RUNNING' THEN seconds END AS seconds FROM steps WHERE at_s >= ${sinceSeconds})
    SELECT r."agentSlug" AS agent, SUM(m.commits) AS commits, COUNT(m.seconds) AS n, SUM(m.seconds) AS total,
      ${bucketColumns("m.seconds", STEP_BOUNDS)}
    FROM measured m JOIN runs r ON r."id" = m."runId"
    GROUP BY r."agentSlug" HAVING SUM(m.commits) > 0 OR COUNT(m.seconds) > 0 ORDER BY r."agentSlug"`;
  const rows = await hotQuery(db)<Record<string, unknown>>({ sql, values: p.values });
  return rows.map((row) => ({
    agent: String(row.agent),
    commits: num(row.commits),
    buckets: bucketsOf(row, STEP_BOUNDS),
    count: num(row.n),
    sum: num(row.total),
  }));
}
