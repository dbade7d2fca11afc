import type { Db } from "@/lib/db";
import { AppError } from "@/lib/runtime/errors";
import { loadState, stateHead, storedEntriesOf, type RunState } from "@/lib/runtime/state";
import type { CarriedStep } from "@/lib/runtime/store";
import type { HotQuery } from "./hot-path";
import type { StoredEntries } from "@/lib/runtime/types";

// A run's state is stored in two parts, so that a step writes the size of its change, not the size
// of the run (docs/architecture.md):
//   - the head: the state's JSON with its facts and its journal emptied (Run.state, and a copy in each
//     Checkpoint.state) — what is left is bounded: the plan, the last observations, usage, pending;
//   - entries: the facts and the journal entries, the two parts that only ever grow, one StateEntry row
//     each, in the order they were added, seq 1, 2, … per run. Run.entrySeq is the last one; a
//     checkpoint's entrySeq says which entries its state had.
// The state at a checkpoint is its head with entries 1..entrySeq appended: the same JSON, byte for
// byte, as the whole state was when it was written (keys keep their places; facts and journal keys
// keep their order). A head written before entries existed still holds its facts and journal inside
// (entrySeq 0); the next commit of such a run moves them all to entries.

export type NewEntry = { kind: "fact" | "journal"; key: string | null; value: string };
export type EntryRow = { seq: number; kind: string; key: string | null; value: string };

export const NOTHING_STORED: StoredEntries = { facts: 0, journal: 0 };

/**
 * A state as stored: its head (JSON) and the entries it adds. `carried`: the checkpoints of the steps a commit
 * carries (CarriedStep), each with how many of `entries` its state has: `entries` are in step order, so each
 * of those states is the stored entries, then a prefix of these.
 */
export type SplitState = {
  head: string;
  entries: NewEntry[];
  carried: Array<{ step: number; head: string; entries: number }>;
};

/** The state for storage: its head, and the entries not stored yet (`stored`: how many already are). */
export function splitState(state: RunState, stored: StoredEntries, carried: CarriedStep[] = []): SplitState {
  const entries: NewEntry[] = [];
  const journalKeys = Object.keys(state.journal);
  let from = stored;
  const add = (to: StoredEntries) => {
    for (const fact of state.facts.slice(from.facts, to.facts))
      entries.push({ kind: "fact", key: null, value: JSON.stringify(fact) });
    for (const key of journalKeys.slice(from.journal, to.journal)) {
      const value = state.journal[key];
      // JSON drops a key whose value is undefined; so does the entry, as the whole state's JSON would.
      if (value !== undefined) entries.push({ kind: "journal", key, value: JSON.stringify(value) });
    }
    from = to;
  };
  const checkpoints = carried.map((step) => {
    add(step.entries);
    return { step: step.step, head: step.head, entries: entries.length };
  });
  add(storedEntriesOf(state));
  return { head: stateHead(state), entries, carried: checkpoints };
}

/**
 * A stored state made whole: the head with the entries appended, ready for loadState (which
 * validates it). A head that is not JSON is passed on as text, for loadState to report.
 */
export function joinState(head: string, rows: EntryRow[]): { raw: unknown; stored: StoredEntries } {
  const stored = { facts: 0, journal: 0 };
  if (rows.length === 0) return { raw: head, stored };
  let state: { facts?: unknown[]; journal?: Record<string, unknown> };
  try {
    state = JSON.parse(head);
  } catch {
    return { raw: head, stored };
  }
  // A head whose parts are not a list and a record (a hand edit, a bad migration) is passed on as it
  // is, for loadState to report where; it is never repaired into something that would load.
  if (!state || typeof state !== "object" || !Array.isArray(state.facts) || !isRecord(state.journal))
    return { raw: state ?? head, stored };
  for (const row of rows) {
    const value = parseEntry(row);
    if (row.kind === "fact") {
      state.facts.push(value);
      stored.facts++;
    } else {
      state.journal[row.key ?? ""] = value;
      stored.journal++;
    }
  }
  return { raw: state, stored };
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

function parseEntry(row: EntryRow): unknown {
  try {
    return JSON.parse(row.value);
  } catch {
    throw new AppError("INVALID_STATE", {
      message: `state entry ${row.seq} (${row.kind}) is not valid JSON`,
      userMessage: "The run's saved state is malformed and was not loaded.",
    });
  }
}

type EntryReader = Pick<Db, "stateEntry">;

/** One stored state (a checkpoint's head and entrySeq), read whole and loaded through its schema. */
export async function loadStoredState(
  db: EntryReader,
  runId: string,
  stored: { state: string; entrySeq: number },
): Promise<RunState> {
  const entries = (await readEntries(db, [{ runId, entrySeq: stored.entrySeq }])).get(runId)!;
  return loadState(joinState(stored.state, entries).raw);
}

/**
 * The entries of each run, up to each one's entrySeq, in order. `pgQuery` (Postgres only): read them on
 * the pg pool (hot-path.ts), as a claim does — through Prisma a query costs milliseconds of CPU.
 */
export async function readEntries(
  db: EntryReader,
  upTo: Array<{ runId: string; entrySeq: number }>,
  pgQuery?: HotQuery,
): Promise<Map<string, EntryRow[]>> {
  const byRun = new Map<string, EntryRow[]>(upTo.map((r) => [r.runId, []]));
  const wanted = upTo.filter((r) => r.entrySeq > 0);
  if (wanted.length === 0) return byRun;
  // One simple query (an OR per run costs Prisma more to build than the database to answer); entries
  // written after the row was read (a commit in between) are left out here, so head and entries agree.
  const upToSeq = new Map(wanted.map((r) => [r.runId, r.entrySeq]));
  const rows = pgQuery
    ? await pgQuery<EntryRow & { runId: string }>({
        sql: `SELECT "runId", "seq", "kind", "key", "value" FROM "StateEntry" WHERE "runId" = ANY($1::text[]) ORDER BY "runId", "seq"`,
        values: [[...upToSeq.keys()]],
      })
    : await db.stateEntry.findMany({
        where:
          wanted.length === 1
            ? { runId: wanted[0].runId, seq: { lte: wanted[0].entrySeq } }
            : { runId: { in: [...upToSeq.keys()] } },
        orderBy: [{ runId: "asc" }, { seq: "asc" }],
        select: { runId: true, seq: true, kind: true, key: true, value: true },
      });
  for (const row of rows) if (row.seq <= upToSeq.get(row.runId)!) byRun.get(row.runId)!.push(row);
  return byRun;
}

/** Insert entries at seq numbers already reserved (Run.entrySeq moved in the same transaction). */
export async function insertEntries(tx: Pick<Db, "stateEntry">, runId: string, firstSeq: number, entries: NewEntry[]) {
  if (entries.length === 0) return;
  await tx.stateEntry.createMany({
    data: entries.map((e, i) => ({ runId, seq: firstSeq + i, kind: e.kind, key: e.key, value: e.value })),
  });
}
