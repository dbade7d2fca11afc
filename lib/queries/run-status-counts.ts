// How many runs are in each status, for the runs list's status filter. One GROUP BY on the status column,
// which the Run (status, …) indexes cover: the database counts index entries and reads no run (SQLite:
// SCAN … USING COVERING INDEX; Postgres: an index-only scan over the pages the visibility map marks).
// Counts within an agent are not offered: no index covers (agentSlug, status), so they would read every
// run of the agent.
import type { Db } from "@/lib/db";
import { RUN_STATUSES, type RunStatus } from "@/lib/runtime/types";

export type RunStatusCounts = Record<RunStatus, number>;

export async function countRunsByStatus(db: Db): Promise<RunStatusCounts> {
  const groups = await db.run.groupBy({ by: ["status"], _count: { _all: true } });
  const counts = Object.fromEntries(RUN_STATUSES.map((status) => [status, 0])) as RunStatusCounts;
  for (const group of groups) if (group.status in counts) counts[group.status as RunStatus] = group._count._all;
  return counts;
}
