import type { StepCommit } from "@/lib/runtime/store";
import * as pg from "./postgres-sql";
import * as rows from "./rows";
import type { Row, Statement } from "./rows";
import type { NewEntry, SplitState } from "./state-entries";
import { notifySql, wakeupPayload } from "./wakeups";

// A step's commit on Postgres as one statement (a chain of CTEs): its text, built once per shape, and the
// values it is run with. steps.ts runs it and reads why it wrote nothing.

/** What a commit statement is run with: the commit and the rows made from it (rows.ts). */
type CommitValues = {
  commit: StepCommit;
  entries: NewEntry[];
  /** The checkpoints of the steps the commit carries (SplitState.carried). */
  carried: SplitState["carried"];
  at: Date;
  updatedAt: Date;
  waitingFor: string | null;
  /** The run's new values, besides the seq increments and wake times (set apart below). */
  run: Row;
  wakeAt: Date | null;
  runnableAt: Date | null;
  events: Row[];
  intent: Row | null;
  intentResult: Row | null;
  packet: Row | null;
  packetChanges: Row | null;
  /** The NOTIFY payload of the run given back with a timer (wakeups.ts), when it is. */
  timer: string | null;
};

/**
 * What the commit statement's text depends on, and nothing else: which parts the commit has and which
 * columns each sets, never a value. The builder sees only this, so two commits of one shape always get
 * the same text (the statement is prepared once per connection: hot-path.ts).
 */
type CommitShape = {
  parks: boolean;
  consumes: boolean;
  releases: boolean;
  epoch: boolean;
  carries: boolean;
  entries: boolean;
  events: boolean;
  wakesOther: boolean;
  timer: boolean;
  runColumns: string[];
  intentColumns: string[] | null;
  intentResultColumns: string[] | null;
  packetColumns: string[] | null;
  packetChangeColumns: string[] | null;
};

/** More shapes than a commit can take (its parts and optional columns): past it, the texts are built again. */
const MAX_SHAPES = 512;

/**
 * A step's commit as one statement, its text built once per shape: building it (a chain of CTEs, ~1.5 KB)
 * and hashing the new text to find its prepared statement cost 8–14 µs a step; a shape's text is kept
 * (the same string each time: found at once), and each commit only reads its values (≈ 3 µs).
 */
export function commitStatements() {
  const byShape = new Map<string, { sql: string; slots: pg.Slots<CommitValues> }>();
  return (commit: StepCommit, state: SplitState, at: Date, updatedAt: Date): Statement => {
    const { wakeAt, runnableAt, ...run } = rows.runChanges(commit, at, state.head);
    const timer = rows.wakeupOf(commit, false, at);
    const values: CommitValues = {
      commit,
      entries: state.entries,
      carried: state.carried,
      at,
      updatedAt,
      waitingFor: rows.parksOnEvent(commit),
      run,
      wakeAt: wakeAt as Date | null,
      runnableAt: runnableAt as Date | null,
      events: commit.events.length > 0 ? rows.eventRows(commit, at) : [],
      intent: commit.createIntent ? rows.intentRow(commit.createIntent, at) : null,
      intentResult: commit.updateIntent ? rows.intentResult(commit.updateIntent, at) : null,
      packet: commit.createPacket ? rows.packetRow(commit.createPacket, at) : null,
      packetChanges: commit.updatePacket ? rows.packetChanges(commit.updatePacket, at) : null,
      timer: (timer && wakeupPayload(timer)) ?? null,
    };
    const shape: CommitShape = {
      parks: values.waitingFor !== null,
      consumes: Boolean(commit.consumeSignalIds?.length),
      releases: Boolean(commit.releaseLease),
      epoch: commit.permissionEpoch !== undefined,
      carries: state.carried.length > 0,
      entries: state.entries.length > 0,
      events: commit.events.length > 0,
      wakesOther: Boolean(commit.wakeRun),
      timer: timer !== null,
      runColumns: Object.keys(run),
      intentColumns: values.intent && Object.keys(values.intent),
      intentResultColumns: values.intentResult && Object.keys(values.intentResult),
      packetColumns: values.packet && Object.keys(values.packet),
      packetChangeColumns: values.packetChanges && Object.keys(values.packetChanges),
    };
    const key = JSON.stringify(shape);
    let statement = byShape.get(key);
    if (!statement) {
      if (byShape.size >= MAX_SHAPES) byShape.clear();
      const slots = new pg.Slots<CommitValues>();
      statement = { sql: postgresCommitSql(shape, slots), slots };
      byShape.set(key, statement);
    }
    return { sql: statement.sql, values: statement.slots.values(values) };
  };
}

/** `"col" = $n::type` for each of `columns`, read from the row `rowOf` picks. */
const assignments = (slots: pg.Slots<CommitValues>, columns: string[], rowOf: (v: CommitValues) => Row | null) =>
  columns.map((column) => `"${column}" = ${slots.add((v) => rowOf(v)![column], pg.columnType(column))}`);

/**
 * The whole of a step's commit as one statement, atomic by itself: each write depends on `head`, the
 * fenced UPDATE of the run, so when the fence (or the packet compare-and-set) does not hold, `head` is
 * empty and no CTE writes a row. `at` is the store's clock (checkpoint, events, completion times);
 * `updatedAt` is the wall clock Prisma's @updatedAt would have written.
 *
 * Order of locks: the packet row (when the commit does a compare-and-set on it), then the run row —
 * the same order as decidePacket, so the two cannot deadlock.
 */
function postgresCommitSql(shape: CommitShape, p: pg.Slots<CommitValues>): string {
  const runId = p.add((v) => v.commit.lease.runId, "text");
  const atTs = p.add((v) => v.at, "timestamp(3)");
  const ctes: string[] = [];

  // The packet compare-and-set. FOR UPDATE, not a plain EXISTS: a plain read sees the statement's
  // snapshot, and a reviewer's decision committed after it would make the packet's UPDATE match no
  // row while the run's commit went through. Locking re-reads the newest version (READ COMMITTED)
  // and holds it until this statement commits, so the CAS and everything else stand or fall together.
  const casPacket = shape.packetChangeColumns !== null;
  if (casPacket) {
    ctes.push(`packet AS MATERIALIZED (
      SELECT "id" FROM "DecisionPacket" WHERE "id" = ${p.add((v) => v.commit.updatePacket!.id, "text")} AND "version" = ${p.add((v) => v.commit.updatePacket!.version, "int")} FOR UPDATE)`);
  }

  // A signal that arrived while this step ran must not be missed: a run parking on an event that
  // is already here wakes at once. This read sees the statement's snapshot (signals consumed by this
  // very commit excluded); commitStep looks once more after the commit for one committed meanwhile.
  const consumeIds = shape.consumes ? p.add((v) => v.commit.consumeSignalIds, "text[]") : null;
  if (shape.parks) {
    ctes.push(`waiting AS (
      SELECT EXISTS (SELECT 1 FROM "Signal" WHERE "runId" = ${runId} AND "type" = ${p.add((v) => v.waitingFor, "text")} AND "consumedAt" IS NULL
        ${consumeIds ? `AND NOT ("id" = ANY(${consumeIds}))` : ""}) AS "found")`);
  }

  const eventCount = p.add((v) => v.commit.events.length, "int");
  const entryCount = p.add((v) => v.entries.length, "int");
  const carriedCount = shape.carries ? p.add((v) => v.carried.length, "int") : null;
  // A run that parks on an event already here wakes now: both its wakeAt and its runnableAt.
  const wakeAtSql = shape.parks
    ? `CASE WHEN (SELECT "found" FROM waiting) THEN ${atTs} ELSE ${p.add((v) => v.wakeAt, "timestamp(3)")} END`
    : p.add((v) => v.wakeAt, "timestamp(3)");
  const set = [
    ...assignments(p, shape.runColumns, (v) => v.run),
    `"stateSeq" = "Run"."stateSeq" + 1${carriedCount ? ` + ${carriedCount}` : ""}`,
    `"eventSeq" = "Run"."eventSeq" + ${eventCount}`,
    `"entrySeq" = "Run"."entrySeq" + ${entryCount}`,
    `"wakeAt" = ${wakeAtSql}`,
    ...(shape.releases
      ? [`"runnableAt" = ${shape.parks ? wakeAtSql : p.add((v) => v.runnableAt, "timestamp(3)")}`]
      : []),
    `"updatedAt" = ${p.add((v) => v.updatedAt, "timestamp(3)")}`,
  ];
  // The permission epoch the step checked must still be the epoch: FOR SHARE waits for a permission
  // change in flight and reads what it committed, so no change slips between check and commit.
  if (shape.epoch) {
    ctes.push(`epoch AS MATERIALIZED (SELECT "value" FROM "Epoch" WHERE "name" = 'permissions' FOR SHARE)`);
  }
  const epochHolds = shape.epoch
    ? `AND COALESCE((SELECT "value" FROM epoch), 0) = ${p.add((v) => v.commit.permissionEpoch, "int")}`
    : "";
  const fence = pg.fenceSql(
    p.add((v) => v.commit.lease.runId, "text"),
    p.add((v) => v.commit.lease.owner, "text"),
    p.add((v) => v.commit.lease.epoch, "int"),
  );
  ctes.push(`head AS (
    UPDATE "Run" SET ${set.join(", ")}
    WHERE ${fence} ${casPacket ? `AND EXISTS (SELECT 1 FROM packet)` : ""} ${epochHolds}
    RETURNING "Run"."stateSeq", "Run"."eventSeq", "Run"."entrySeq", "Run"."state", "Run"."workspaceId")`);

  // Every CTE below reads FROM head: an empty head (fenced out, or the CAS lost) writes nothing.
  // The checkpoint takes the state's head from head: the JSON is sent once.
  // The steps it carries come first, each with its own head and its share of the entries (SplitState.carried).
  const carriedRows = carriedCount
    ? `SELECT ${runId}, head."stateSeq" - ${carriedCount} - 1 + c.n::int, c.step, c.state, head."entrySeq" - ${entryCount} + c.entries, ${atTs}
      FROM head, unnest(${p.add((v) => v.carried.map((c) => c.step), "int[]")}, ${p.add((v) => v.carried.map((c) => c.head), "text[]")}, ${p.add((v) => v.carried.map((c) => c.entries), "int[]")})
        WITH ORDINALITY AS c(step, state, entries, n)
      UNION ALL `
    : "";
  ctes.push(`checkpoint AS (
    INSERT INTO "Checkpoint" ("runId", "seq", "step", "state", "entrySeq", "createdAt")
    ${carriedRows}SELECT ${runId}, head."stateSeq", ${p.add((v) => v.commit.state.step, "int")}, head."state", head."entrySeq", ${atTs} FROM head)`);
  if (shape.entries) {
    const columns = {
      kinds: p.add((v) => v.entries.map((e) => e.kind), "text[]"),
      keys: p.add((v) => v.entries.map((e) => e.key), "text[]"),
      values: p.add((v) => v.entries.map((e) => e.value), "text[]"),
    };
    ctes.push(`entries AS (${pg.insertEntriesSql(columns, runId, "head", `head."entrySeq" - ${entryCount}`)})`);
  }

  if (shape.events) {
    // Seqs: the run's eventSeq after the increment is the last one of this commit's events.
    const columns = {
      steps: p.add((v) => v.events.map((r) => r.step), "int[]"),
      types: p.add((v) => v.events.map((r) => r.type), "text[]"),
      data: p.add((v) => v.events.map((r) => r.data), "text[]"),
    };
    ctes.push(`events AS (${pg.insertEventsSql(columns, runId, "head", `head."eventSeq" - ${eventCount}`, atTs)})`);
  }
  if (shape.intentColumns) {
    const columns = shape.intentColumns;
    const placeholders = columns.map((c) => p.add((v) => v.intent![c], pg.columnType(c)));
    ctes.push(`intent_created AS (${pg.insertFromHeadSql("EffectIntent", columns, placeholders)})`);
  }
  if (shape.intentResultColumns) {
    ctes.push(`intent_updated AS (
      UPDATE "EffectIntent" SET ${assignments(p, shape.intentResultColumns, (v) => v.intentResult).join(", ")}
      FROM head WHERE "EffectIntent"."id" = ${p.add((v) => v.commit.updateIntent!.id, "text")})`);
  }
  if (shape.packetColumns) {
    const columns = shape.packetColumns;
    const placeholders = columns.map((c) => p.add((v) => v.packet![c], pg.columnType(c)));
    ctes.push(`packet_created AS (${pg.insertFromHeadSql("DecisionPacket", columns, placeholders, ["workspaceId"])})`);
  }
  if (shape.packetChangeColumns) {
    // The row locked by `packet` above, whose version matched; undefined fields are left alone.
    const changes = assignments(p, shape.packetChangeColumns, (v) => v.packetChanges);
    ctes.push(`packet_updated AS (
      UPDATE "DecisionPacket" SET ${[`"version" = "DecisionPacket"."version" + 1`, ...changes].join(", ")}
      FROM head, packet WHERE "DecisionPacket"."id" = packet."id")`);
  }
  if (consumeIds) {
    ctes.push(`signals_consumed AS (
      UPDATE "Signal" SET "consumedAt" = ${atTs}
      FROM head WHERE "Signal"."id" = ANY(${consumeIds}) AND "Signal"."consumedAt" IS NULL)`);
  }

  // Another run parked on this event type wakes with this commit (StepCommit.wakeRun: a child's parent).
  if (shape.wakesOther) {
    ctes.push(`other_woken AS (
      UPDATE "Run" SET "wakeAt" = ${atTs}, "runnableAt" = ${atTs}, "updatedAt" = ${p.add((v) => v.updatedAt, "timestamp(3)")}
      FROM head WHERE "Run"."id" = ${p.add((v) => v.commit.wakeRun!.runId, "text")} AND "Run"."status" = 'WAITING_EVENT' AND "Run"."waitingFor" = ${p.add((v) => v.commit.wakeRun!.waitingFor, "text")}
      RETURNING "Run"."id")`);
  }

  // Other workers hear of a run given back with a timer, or woken at once, from this transaction.
  const notify = shape.timer ? notifySql(p.add((v) => v.timer, "text")) : "0";
  const notified = shape.parks
    ? `CASE WHEN (SELECT "found" FROM waiting) THEN ${notifySql(p.add((v) => v.commit.lease.runId, "text"))} ELSE ${notify} END`
    : notify;
  const otherWoken = shape.wakesOther
    ? `, EXISTS (SELECT 1 FROM other_woken) AS "otherWoken", (SELECT ${notifySql(`other_woken."id"`)} FROM other_woken) AS "otherNotified"`
    : "";
  return `WITH ${ctes.join(",\n")}
    SELECT head."stateSeq", head."eventSeq", ${shape.parks ? `(SELECT "found" FROM waiting)` : "false"} AS "woken", ${notified} AS "notified"${otherWoken} FROM head`;
}
