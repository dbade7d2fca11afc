import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, type Db } from "../lib/db";
import { CHECKPOINT_PAGE_SIZE } from "../lib/queries/run-checkpoints";
import { TIMELINE_PAGE_SIZE } from "../lib/queries/run-events";
import { getRunDetail, getRunSnapshot } from "../lib/queries/runs";
import { initialState } from "../lib/runtime/state";
import { expectError, providers, uid } from "./support/runtime";

// The run page's read model: checkpoints listed as metadata, a checkpoint's state loaded only when it is
// shown or compared, the live page's snapshot; a long run opens with one page of its trace and its newest
// checkpoints; and a run whose stored state fails its schema still opens, with its row, trace,
// checkpoints' places and the stored text, instead of an error page.

describe.each(providers())("run page read model [%s]", (_provider, url) => {
  let db: Db;
  beforeAll(() => {
    process.env.DATABASE_URL = url; // getRunDetail goes through the runtime's composition root, which follows it
    db = createDb(url);
  });
  afterAll(async () => {
    await db.$disconnect();
  });

  const goodState = JSON.stringify(
    initialState({
      agent: { slug: "detail-agent", version: "1", instructionsHash: "h" },
      instructions: "",
      input: null,
    }),
  );
  /** A state one step on from goodState, with a plan step, so each checkpoint's state is told apart. */
  const stepOneState = JSON.stringify({
    ...JSON.parse(goodState),
    step: 1,
    plan: [{ id: "p1", title: "Look the order up", status: "done" }],
  });

  async function insertRun(state: string) {
    const id = uid("run_detail");
    await db.run.create({
      data: {
        id,
        agentSlug: "detail-agent",
        agentVersion: "1",
        status: "FAILED",
        error: "unreadable state: facts",
        input: "{}",
        state,
        stateSeq: 2,
        eventSeq: 1,
        checkpoints: {
          create: [
            { seq: 1, step: 0, state: goodState },
            { seq: 2, step: 1, state },
          ],
        },
        events: {
          create: [
            {
              seq: 1,
              type: "run.status",
              step: -1,
              data: JSON.stringify({ from: "RUNNING", to: "FAILED", error: "unreadable state: facts" }),
              at: new Date(),
            },
          ],
        },
      },
    });
    return id;
  }

  it("opens a run whose state is unreadable: its row, trace, checkpoints and the stored text", async () => {
    const stored = JSON.stringify({ ...JSON.parse(goodState), facts: "nope" });
    const id = await insertRun(stored);
    const detail = await getRunDetail(id);
    expect(detail?.kind).toBe("unreadable");
    if (detail?.kind !== "unreadable") return;
    expect(detail.run).toMatchObject({ id, status: "FAILED", error: "unreadable state: facts" });
    expect(detail.stateError).toMatch(/^state does not match its schema \(facts: /); // where it fails, for the operator
    expect(detail.storedState).toBe(stored);
    expect(detail.checkpoints.map((c) => [c.seq, c.step])).toEqual([
      [1, 0],
      [2, 1],
    ]);
    expect(detail.trace.events.map((e) => e.type)).toEqual(["run.status"]);
    expect(await db.run.findUniqueOrThrow({ where: { id }, select: { state: true } })).toEqual({ state: stored }); // nothing rewritten
  });

  it("a readable run: the current state, recovery, and its checkpoints as metadata only", async () => {
    const id = await insertRun(stepOneState);
    const detail = await getRunDetail(id);
    expect(detail?.kind).toBe("readable");
    if (detail?.kind !== "readable") return;
    expect(detail.shownCheckpoint).toBeNull();
    expect(detail.snapshot).toMatchObject({
      runId: id,
      status: "FAILED",
      stateSeq: 2,
      state: { step: 1 },
      hasOlderCheckpoints: false,
    });
    expect(detail.snapshot.recovery).toMatchObject({ runId: id, status: "FAILED", mayHaveHappened: [] });
    expect(detail.snapshot.checkpoints).toEqual([
      { seq: 1, step: 0, createdAt: expect.any(String) },
      { seq: 2, step: 1, createdAt: expect.any(String) },
    ]);
    expect(detail.compare).toBeNull();
  });

  it("a past checkpoint's state when it is shown, and two when they are compared", async () => {
    const id = await insertRun(stepOneState);
    const shown = await getRunDetail(id, { checkpoint: 1 });
    if (shown?.kind !== "readable") throw new Error("expected a readable run");
    expect(shown.shownCheckpoint).toMatchObject({ seq: 1, step: 0, state: { step: 0, plan: [] } });
    expect(shown.snapshot.state).toBeNull(); // the current state is not shown, so not sent

    const compared = await getRunDetail(id, { compareFrom: 1, compareTo: 2 });
    if (compared?.kind !== "readable") throw new Error("expected a readable run");
    expect(compared.compare?.from).toMatchObject({ seq: 1, state: { step: 0, plan: [] } });
    expect(compared.compare?.to).toMatchObject({ seq: 2, state: { step: 1, plan: [{ id: "p1" }] } });

    const missing = await getRunDetail(id, { checkpoint: 9, compareFrom: 1, compareTo: 9 });
    if (missing?.kind !== "readable") throw new Error("expected a readable run");
    expect(missing).toMatchObject({
      isCheckpointMissing: true,
      shownCheckpoint: null,
      compare: null,
      snapshot: { state: { step: 1 } },
    });
  });

  it("the live page's snapshot: with or without the current state; NOT_FOUND and INVALID_STATE say why not", async () => {
    const id = await insertRun(stepOneState);
    const withState = await getRunSnapshot(id, { withState: true });
    expect(withState).toMatchObject({
      runId: id,
      stateSeq: 2,
      state: { step: 1 },
      checkpoints: [{ seq: 1 }, { seq: 2 }],
    });
    expect(withState.checkpoints[0]).not.toHaveProperty("state");
    expect((await getRunSnapshot(id, { withState: false })).state).toBeNull();
    await expectError(getRunSnapshot(uid("missing"), { withState: true }), "NOT_FOUND");
    await expectError(getRunSnapshot(await insertRun("{not json"), { withState: true }), "INVALID_STATE");
  });

  describe("a run at size: 1,000 trace events and 120 checkpoints", () => {
    const EVENTS = 1_000;
    const CHECKPOINTS = 120;
    async function insertLongRun(status: "COMPLETED" | "RUNNING") {
      const id = uid("run_long");
      await db.run.create({
        data: {
          id,
          agentSlug: "detail-agent",
          agentVersion: "1",
          status,
          input: "{}",
          state: goodState,
          stateSeq: CHECKPOINTS,
          eventSeq: EVENTS,
        },
      });
      await db.traceEvent.createMany({
        data: Array.from({ length: EVENTS }, (_, i) => ({
          runId: id,
          seq: i + 1,
          step: Math.floor(i / 10),
          type: i % 2 ? "tool.call" : "model.decision",
          data: JSON.stringify({ latencyMs: 3, usage: { inputTokens: 1, outputTokens: 1, costUsd: 0.5 } }),
          at: new Date(Date.UTC(2030, 0, 1, 0, 0, i)),
        })),
      });
      await db.checkpoint.createMany({
        data: Array.from({ length: CHECKPOINTS }, (_, i) => ({ runId: id, seq: i + 1, step: i, state: goodState })),
      });
      return id;
    }

    it("a finished run opens at the start of its trace, one page of it, with the whole trace in numbers and its newest checkpoints", async () => {
      const detail = await getRunDetail(await insertLongRun("COMPLETED"));
      if (detail?.kind !== "readable") throw new Error("expected a readable run");
      expect(detail.trace).toMatchObject({ hasOlder: false, hasNewer: true });
      expect(detail.trace.events.map((e) => e.seq)).toEqual(
        Array.from({ length: TIMELINE_PAGE_SIZE }, (_, i) => i + 1),
      );
      expect(detail.traceSummary).toMatchObject({
        total: EVENTS,
        countsByType: { "model.decision": EVENTS / 2, "tool.call": EVENTS / 2 },
        firstAt: "2030-01-01T00:00:00.000Z",
      });
      expect(detail.traceSummary.steps).toHaveLength(EVENTS / 10);
      expect(detail.traceSummary.totals).toEqual({
        modelCalls: 500,
        tokens: 1_000,
        costUsd: 250,
        toolCalls: 500,
        toolLatencyMs: 1_500,
        toolErrors: 0,
      });
      expect(detail.snapshot.checkpoints.map((c) => c.seq)).toEqual(
        Array.from({ length: CHECKPOINT_PAGE_SIZE }, (_, i) => CHECKPOINTS - CHECKPOINT_PAGE_SIZE + i + 1),
      );
      expect(detail.snapshot.hasOlderCheckpoints).toBe(true);
    });

    it("a live run opens at its newest events: the page follows them", async () => {
      const detail = await getRunDetail(await insertLongRun("RUNNING"));
      if (detail?.kind !== "readable") throw new Error("expected a readable run");
      expect(detail.trace).toMatchObject({ hasOlder: true, hasNewer: false });
      expect(detail.trace.events.map((e) => e.seq)).toEqual(
        Array.from({ length: TIMELINE_PAGE_SIZE }, (_, i) => EVENTS - TIMELINE_PAGE_SIZE + i + 1),
      );
    });
  });

  it("no such run: null", async () => {
    expect(await getRunDetail(uid("missing"))).toBeNull();
  });
});
