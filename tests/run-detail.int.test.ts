import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, type Db } from "../lib/db";
import { getRunDetail } from "../lib/queries/runs";
import { initialState } from "../lib/runtime/state";
import { providers, uid } from "./support/runtime";

// The run page's read model: a run whose stored state fails its schema still opens, with its row, trace,
// checkpoints' places and the stored text, instead of an error page.

describe.each(providers())("run page read model [%s]", (_provider, url) => {
  let db: Db;
  beforeAll(() => {
    process.env.DATABASE_URL = url; // getRunDetail goes through the runtime's composition root, which follows it
    db = createDb(url);
  });
  afterAll(async () => { await db.$disconnect(); });

  const goodState = JSON.stringify(initialState({ agent: { slug: "detail-agent", version: "1", instructionsHash: "h" }, instructions: "", input: null }));

  async function insertRun(state: string) {
    const id = uid("run_detail");
    await db.run.create({
      data: {
        id, agentSlug: "detail-agent", agentVersion: "1", status: "FAILED", error: "unreadable state: facts", input: "{}", state, stateSeq: 2, eventSeq: 1,
        checkpoints: { create: [{ seq: 1, step: 0, state: goodState }, { seq: 2, step: 1, state }] },
        events: { create: [{ seq: 1, type: "run.status", step: -1, data: JSON.stringify({ from: "RUNNING", to: "FAILED", error: "unreadable state: facts" }), at: new Date() }] },
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
    expect(detail.checkpoints.map((c) => [c.seq, c.step])).toEqual([[1, 0], [2, 1]]);
    expect(detail.trace.events.map((e) => e.type)).toEqual(["run.status"]);
    expect(await db.run.findUniqueOrThrow({ where: { id }, select: { state: true } })).toEqual({ state: stored }); // nothing rewritten
  });

  it("a readable run is read through the runtime, with its state and recovery view", async () => {
    const id = await insertRun(goodState);
    const detail = await getRunDetail(id, { checkpoint: 1 });
    expect(detail?.kind).toBe("readable");
    if (detail?.kind !== "readable") return;
    expect(detail.shownCheckpoint?.seq).toBe(1);
    expect(detail.shownState.step).toBe(0);
    expect(detail.recovery).toMatchObject({ runId: id, status: "FAILED", mayHaveHappened: [] });
  });

  it("no such run: null", async () => {
    expect(await getRunDetail(uid("missing"))).toBeNull();
  });
});
