import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createDb, type Db } from "../lib/db";
import type { RunState } from "../lib/runtime/state";
import type { RuntimeStore, StepCommit } from "../lib/runtime/store";
import type { Lease } from "../lib/runtime/types";
import { createPrismaStore } from "../lib/store/prisma-store";
import { NOTHING_STORED } from "../lib/store/state-entries";
import { buildNewPacket, createClaimedRun } from "./support/contract/builders";
import { uid } from "./support/runtime";

// On SQLite a step's commit runs synchronously on the better-sqlite3 connection under Prisma's adapter
// (lib/sqlite-statements.ts), not through Prisma's client: what it must keep of Prisma's transaction.

const sqliteUrl = inject("sqliteUrl");
/** The adapter's format for a DateTime: ISO text with "+00:00". */
const ADAPTER_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$/;

describe("a step's commit on SQLite", () => {
  let db: Db;
  let store: RuntimeStore;
  let file: Database.Database; // a second connection, to see what is stored as it is stored
  const agentSlug = uid("sqlite-commit");
  const at = new Date("2026-03-04T05:06:07.089Z");

  beforeAll(() => {
    db = createDb(sqliteUrl);
    store = createPrismaStore(db, { now: () => at });
    file = new Database(sqliteUrl.replace(/^file:/, ""), { readonly: true });
  });
  afterAll(async () => {
    file.close();
    await store.close();
  });

  const claimed = () => createClaimedRun(store, { run: { agentSlug } });
  const commit = (lease: Lease, state: RunState, extra: Partial<StepCommit> = {}) =>
    store.commitStep({
      lease,
      status: "COMPLETED", // nothing left for another test file's worker to pick up
      releaseLease: true,
      state: { ...state, step: state.step + 1 },
      storedEntries: NOTHING_STORED,
      events: [{ type: "step.done", step: state.step + 1, data: { n: 1 } }],
      ...extra,
    });
  const counts = (runId: string) => ({
    checkpoints: db.checkpoint.count({ where: { runId } }),
    events: db.traceEvent.count({ where: { runId } }),
  });

  it("stores times as Prisma's adapter does, and Prisma reads them back as written", async () => {
    const { run, lease } = await claimed();
    const { stateSeq } = await commit(lease, run.state);

    const stored = file
      .prepare(`SELECT "createdAt", typeof("createdAt") AS "type" FROM "Checkpoint" WHERE "runId" = ? AND "seq" = ?`)
      .get(run.id, stateSeq) as { createdAt: string; type: string };
    expect(stored).toEqual({ createdAt: "2026-03-04T05:06:07.089+00:00", type: "text" });
    // Run.createdAt was written by Prisma's own create: the same format.
    const created = file.prepare(`SELECT "createdAt", "updatedAt" FROM "Run" WHERE "id" = ?`).get(run.id) as Record<
      string,
      string
    >;
    expect(created.createdAt).toMatch(ADAPTER_TIME);
    expect(created.updatedAt).toMatch(ADAPTER_TIME);

    const checkpoint = await db.checkpoint.findFirstOrThrow({ where: { runId: run.id, seq: stateSeq } });
    expect(checkpoint.createdAt).toEqual(at);
    const event = await db.traceEvent.findFirstOrThrow({ where: { runId: run.id, type: "step.done" } });
    expect(event.at).toEqual(at);
    expect(JSON.parse(event.data)).toEqual({ n: 1 });
  });

  it("rolls back every statement it ran when a later one fails (a packet's compare-and-set lost)", async () => {
    const { run, lease } = await claimed();
    const before = { run: await store.getRun(run.id), ...(await Promise.all(Object.values(counts(run.id)))) };
    const packet = buildNewPacket(run.id);
    await expect(
      // The run's row, the checkpoint and the event are written before the packet's compare-and-set fails.
      commit(lease, run.state, { updatePacket: { id: packet.id, version: 0, status: "EXPIRED" } }),
    ).rejects.toMatchObject({ code: "CONFLICT" });
    const after = { run: await store.getRun(run.id), ...(await Promise.all(Object.values(counts(run.id)))) };
    expect(after).toEqual(before);
    await commit(lease, run.state); // the lease still holds: the run ends
  });

  it("waits for a Prisma transaction open on the connection, and neither writes inside the other", async () => {
    const { run, lease } = await claimed();
    const other = await claimed();
    let committed = false;
    let committing: Promise<unknown> | undefined;
    const rolledBack = db.$transaction(async (tx) => {
      await tx.run.update({ where: { id: other.run.id }, data: { error: "written, then rolled back" } });
      committing = commit(lease, run.state).then(() => (committed = true));
      // Give the commit every chance to run now (it must not: this transaction is open).
      for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
      expect(committed).toBe(false);
      throw new Error("roll back");
    });
    await expect(rolledBack).rejects.toThrow("roll back");
    await committing;
    expect((await store.getRun(run.id))!.status).toBe("COMPLETED");
    expect((await store.getRun(other.run.id))!.error).toBeNull();
    await commit(other.lease, other.run.state);
  });

  it("commits after Prisma disconnected, on the connection Prisma opens again", async () => {
    const { run, lease } = await claimed();
    await db.$disconnect();
    await commit(lease, run.state);
    expect((await store.getRun(run.id))!.status).toBe("COMPLETED");
  });
});

describe("a Prisma transaction on SQLite", () => {
  // Begun deferred, a transaction that reads first would ask for the write lock only at its first write, and then be
  // refused at once ("database is locked") if another process wrote meanwhile: it must hold the lock from BEGIN.
  it("holds the file's write lock from its BEGIN, though it reads first", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "tether-begin-")), "t.db");
    const db = createDb(`file:${path}`);
    const other = new Database(path, { timeout: 0 }); // another writer that does not wait: it says what it finds
    try {
      await db.$transaction(async (tx) => {
        await tx.$queryRawUnsafe("SELECT 1");
        expect(() => other.exec("BEGIN IMMEDIATE")).toThrow(/database is locked/);
      });
      other.exec("BEGIN IMMEDIATE"); // committed: the lock is free again
      other.exec("ROLLBACK");
    } finally {
      other.close();
      await db.$disconnect();
    }
  });
});
