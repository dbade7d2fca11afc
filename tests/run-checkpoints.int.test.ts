import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, type Db } from "../lib/db";
import { findCheckpoint, findCheckpointSummaries } from "../lib/queries/run-checkpoints";
import { STATE_SCHEMA_VERSION, initialState } from "../lib/runtime/state";
import { recordQueries, selectedColumns } from "./support/query-recorder";
import { providers, uid } from "./support/runtime";

// A run's checkpoints on both databases: the list is metadata read without the state column, however many
// and however large the states; one checkpoint's state is read by its key, loaded through the schema.

describe.each(providers())("checkpoint queries [%s]", (_provider, url) => {
  let db: Db;
  const runId = uid("run_ckpt");
  const CHECKPOINTS = 12;
  const base = initialState({
    agent: { slug: "ckpt-agent", version: "1", instructionsHash: "h" },
    instructions: "",
    input: null,
  });
  /** Each checkpoint's state carries its own step and a large fact, as a long run's states do. */
  const stateAt = (step: number) => ({
    ...base,
    step,
    facts: [
      {
        id: `fact_${step}`,
        key: `order.${step}`,
        value: "x".repeat(20_000),
        kind: "observation" as const,
        at: new Date(0).toISOString(),
        step,
        expiresAt: null,
        source: {},
      },
    ],
  });

  beforeAll(async () => {
    db = createDb(url);
    await db.run.create({
      data: {
        id: runId,
        agentSlug: "ckpt-agent",
        agentVersion: "1",
        status: "RUNNING",
        input: "{}",
        state: JSON.stringify(stateAt(CHECKPOINTS - 1)),
        stateSeq: CHECKPOINTS,
        checkpoints: {
          create: Array.from({ length: CHECKPOINTS }, (_, i) => ({
            seq: i + 1,
            step: i,
            state: JSON.stringify(stateAt(i)),
            createdAt: new Date(Date.UTC(2030, 0, 1, 0, 0, i)),
          })),
        },
      },
    });
  });
  afterAll(async () => {
    await db.$disconnect();
  });

  it("lists every checkpoint as seq, step and time, oldest first, without reading a state", async () => {
    const recorder = recordQueries(db);
    const { checkpoints, hasOlder } = await findCheckpointSummaries(recorder.db, runId);
    expect(hasOlder).toBe(false);
    expect(checkpoints.map((c) => [c.seq, c.step])).toEqual(Array.from({ length: CHECKPOINTS }, (_, i) => [i + 1, i]));
    expect(checkpoints[2]).toEqual({ seq: 3, step: 2, createdAt: "2030-01-01T00:00:02.000Z" });
    expect(recorder.queries).toHaveLength(1);
    expect(recorder.queries[0]).toMatchObject({ model: "Checkpoint", operation: "findMany" });
    expect(selectedColumns(recorder.queries[0]).sort()).toEqual(["createdAt", "seq", "step"]);
  });

  it("keeps the newest when there are more than a page holds, and says older ones exist", async () => {
    const { checkpoints, hasOlder } = await findCheckpointSummaries(db, runId, { limit: 5 });
    expect(hasOlder).toBe(true);
    expect(checkpoints.map((c) => c.seq)).toEqual([8, 9, 10, 11, 12]);
    expect(await findCheckpointSummaries(db, runId, { limit: CHECKPOINTS })).toMatchObject({ hasOlder: false });
    expect(await findCheckpointSummaries(db, uid("run_none"))).toEqual({ checkpoints: [], hasOlder: false });
  });

  it("pages down the list: each page the newest checkpoints before the oldest one held, every checkpoint once", async () => {
    const pages: number[][] = [];
    let page = await findCheckpointSummaries(db, runId, { limit: 5 });
    pages.push(page.checkpoints.map((c) => c.seq));
    while (page.hasOlder) {
      page = await findCheckpointSummaries(db, runId, { before: page.checkpoints[0].seq, limit: 5 });
      pages.push(page.checkpoints.map((c) => c.seq));
    }
    expect(pages).toEqual([
      [8, 9, 10, 11, 12],
      [3, 4, 5, 6, 7],
      [1, 2],
    ]);
    expect(await findCheckpointSummaries(db, runId, { before: 1 })).toEqual({ checkpoints: [], hasOlder: false });
  });

  it("reads one checkpoint's state by its key: that checkpoint's, loaded through the schema", async () => {
    const recorder = recordQueries(db);
    const checkpoint = await findCheckpoint(recorder.db, runId, 4);
    expect(checkpoint).toMatchObject({
      seq: 4,
      step: 3,
      createdAt: "2030-01-01T00:00:03.000Z",
      state: { schemaVersion: STATE_SCHEMA_VERSION, step: 3, facts: [{ id: "fact_3", key: "order.3" }] },
    });
    expect(recorder.queries).toEqual([
      expect.objectContaining({
        model: "Checkpoint",
        operation: "findUnique",
        args: expect.objectContaining({ where: { runId_seq: { runId, seq: 4 } } }),
      }),
    ]);
    expect(await findCheckpoint(db, runId, CHECKPOINTS + 1)).toBeNull();
    expect(await findCheckpoint(db, uid("run_none"), 1)).toBeNull();
  });

  it("an unreadable checkpoint state fails on its own, with INVALID_STATE", async () => {
    await db.checkpoint.create({
      data: { runId, seq: 100, step: 99, state: JSON.stringify({ ...base, schemaVersion: 99 }) },
    });
    await expect(findCheckpoint(db, runId, 100)).rejects.toMatchObject({ code: "INVALID_STATE" });
    expect((await findCheckpointSummaries(db, runId)).checkpoints.at(-1)).toMatchObject({ seq: 100, step: 99 }); // the list still reads
  });
});
