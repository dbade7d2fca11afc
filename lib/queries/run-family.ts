// A run's family for the console: the run whose step started it (a child run, lib/runtime/children.ts)
// and the runs its own steps started. Only ids, agents and statuses: each links to its own run page.
import { getDb, type Db } from "@/lib/db";
import type { RunStatus } from "@/lib/runtime/types";

export type RunLink = { id: string; agentSlug: string; status: RunStatus; spawnedAtStep: number | null };
export type RunFamily = {
  /** The parent and the step of it that started this run; null when this run is not a child (or its parent was deleted). */
  parent: RunLink | null;
  /** The runs this run's steps started, oldest first. */
  children: RunLink[];
};

const select = { id: true, agentSlug: true, status: true, spawnedAtStep: true } as const;
const MAX_CHILDREN = 100;

const toLink = (row: { id: string; agentSlug: string; status: string; spawnedAtStep: number | null }): RunLink => ({
  ...row,
  status: row.status as RunStatus,
});

/** The parent a child run was started by (with the parent's step that did it), or null. */
export async function findRunParent(
  run: { spawnedByRunId: string | null; spawnedAtStep: number | null },
  db: Db = getDb(),
): Promise<RunLink | null> {
  if (!run.spawnedByRunId) return null;
  const parent = await db.run.findUnique({ where: { id: run.spawnedByRunId }, select });
  return parent ? { ...toLink(parent), spawnedAtStep: run.spawnedAtStep } : null;
}

export async function findRunFamily(
  run: { id: string; spawnedByRunId: string | null; spawnedAtStep: number | null },
  db: Db = getDb(),
): Promise<RunFamily> {
  const [parent, children] = await Promise.all([
    findRunParent(run, db),
    db.run.findMany({
      where: { spawnedByRunId: run.id },
      select,
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
      take: MAX_CHILDREN,
    }),
  ]);
  return { parent, children: children.map(toLink) };
}
