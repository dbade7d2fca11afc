import type { Db } from "@/lib/db";
import { findTool } from "@/lib/runtime/context";
import type { Runtime } from "@/lib/runtime/engine";
import { AppError, isAppError } from "@/lib/runtime/errors";
import type { RunRecord } from "@/lib/runtime/types";
import type { ThreadView } from "./present";
import { RUN_STATUSES_BY_THREAD_STATUS, type ThreadStatus } from "./thread-status";

// Reading threads: one run with its pending approval packets, and the search the Agent Inbox pages
// through (offset and limit, a thread status, the graph id). The search filters and orders in the
// database, so a page holds the threads the filter names and the offset counts them.

export type LangGraphDeps = { runtime: Runtime; db: Db };

export const threadNotFound = (id: string) =>
  new AppError("NOT_FOUND", { message: `thread ${id} not found`, userMessage: `Thread ${id} not found.` });

async function viewOf(deps: LangGraphDeps, run: RunRecord): Promise<ThreadView> {
  const pending = (await deps.runtime.store.findPackets({ runId: run.id, status: ["PENDING"], kind: "APPROVAL" })).sort(
    (a, b) => a.createdAt.getTime() - b.createdAt.getTime(),
  );
  const tools = await Promise.all(
    [...new Set(pending.map((p) => p.tool))].map(
      async (name) =>
        [name, (await findTool(deps.runtime.context, name).catch(() => undefined))?.editableFields] as const,
    ),
  );
  return { run, pending, editableFields: new Map(tools) };
}

export async function getThread(deps: LangGraphDeps, threadId: string): Promise<ThreadView> {
  try {
    return await viewOf(deps, await deps.runtime.getRun(threadId));
  } catch (error) {
    throw isAppError(error, "NOT_FOUND") ? threadNotFound(threadId) : error;
  }
}

export type ThreadSearch = {
  offset: number;
  limit: number;
  status?: ThreadStatus;
  graphId?: string;
  ids?: string[];
  sortBy: "thread_id" | "created_at" | "updated_at" | "state_updated_at";
  sortOrder: "asc" | "desc";
};

const PENDING_APPROVAL = { status: "PENDING", kind: "APPROVAL" };

function statusWhere(status: ThreadStatus | undefined) {
  if (!status) return {};
  if (status === "interrupted") return { packets: { some: PENDING_APPROVAL } };
  return { status: { in: [...RUN_STATUSES_BY_THREAD_STATUS[status]] }, packets: { none: PENDING_APPROVAL } };
}

export async function searchThreads(deps: LangGraphDeps, search: ThreadSearch): Promise<ThreadView[]> {
  const column = search.sortBy === "thread_id" ? "id" : search.sortBy === "created_at" ? "createdAt" : "updatedAt";
  const rows = await deps.db.run.findMany({
    where: {
      agentSlug: search.graphId,
      ...(search.ids ? { id: { in: search.ids } } : {}),
      ...statusWhere(search.status),
    },
    orderBy: [{ [column]: search.sortOrder }, { id: search.sortOrder }],
    skip: search.offset,
    take: search.limit,
    select: { id: true },
  });
  const runs = await Promise.all(rows.map((row) => deps.runtime.store.getRun(row.id)));
  // A run deleted between the two reads is left out.
  return Promise.all(runs.filter((run): run is RunRecord => run !== null).map((run) => viewOf(deps, run)));
}
