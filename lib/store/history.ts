import { loadState, type RunState } from "@/lib/runtime/state";
import type { Checkpoint, RuntimeStore } from "@/lib/runtime/store";
import type { TraceEvent } from "@/lib/runtime/types";
import type { Dialect } from "./dialect";
import { parse, toIntent } from "./records";
import { joinState, loadStoredState, readEntries, type EntryRow } from "./state-entries";

// A run's history as written by its steps: the trace, the checkpoints (each a state the run can be
// resumed or inspected from) and the effect intents. Read-only; the same Prisma queries on both databases.

type HistoryStore = Pick<
  RuntimeStore,
  "listEvents" | "listCheckpoints" | "getCheckpoint" | "getIntent" | "listIntents"
>;

export function createHistoryStore({ db }: Dialect): HistoryStore {
  return {
    async listEvents(runId, opts = {}) {
      const rows = await db.traceEvent.findMany({
        where: { runId, seq: { gt: opts.afterSeq ?? 0 } },
        orderBy: { seq: "asc" },
        take: opts.limit ?? 1000,
      });
      return rows.map((r): TraceEvent => ({
        runId: r.runId,
        seq: r.seq,
        step: r.step,
        type: r.type,
        data: parse(r.data) as Record<string, unknown>,
        at: r.at,
      }));
    },

    async listCheckpoints(runId) {
      const rows = await db.checkpoint.findMany({ where: { runId }, orderBy: { seq: "asc" } });
      // One read of the entries: each checkpoint's state has a prefix of them.
      const entries = (await readEntries(db, [{ runId, entrySeq: Math.max(0, ...rows.map((r) => r.entrySeq)) }])).get(
        runId,
      )!;
      return rows.map((row) => toCheckpoint(row, entries));
    },

    async getCheckpoint(runId, seq) {
      const row = await db.checkpoint.findUnique({ where: { runId_seq: { runId, seq } } });
      return row
        ? { seq: row.seq, step: row.step, state: await loadStoredState(db, runId, row), createdAt: row.createdAt }
        : null;
    },

    async getIntent(id) {
      const row = await db.effectIntent.findUnique({ where: { id } });
      return row ? toIntent(row) : null;
    },

    async listIntents(runId) {
      const rows = await db.effectIntent.findMany({
        where: { runId },
        orderBy: [{ step: "asc" }, { createdAt: "asc" }],
      });
      return rows.map(toIntent);
    },
  };
}

/** A checkpoint's state: its head with the run's entries 1..entrySeq (`entries` may hold more). */
function toCheckpoint(
  row: { seq: number; step: number; state: string; entrySeq: number; createdAt: Date },
  entries: EntryRow[],
): Checkpoint {
  const { raw } = joinState(
    row.state,
    entries.filter((e) => e.seq <= row.entrySeq),
  );
  return { seq: row.seq, step: row.step, state: loadState(raw) as RunState, createdAt: row.createdAt };
}
