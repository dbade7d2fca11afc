import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findRunEvents } from "../lib/queries/run-events";
import {
  decodeRunCursor,
  encodeRunCursor,
  findRunList,
  type RunListFilter,
  type RunListItem,
} from "../lib/queries/run-list";
import { initialState } from "../lib/runtime/state";
import { recordQueries, selectedColumns } from "./support/query-recorder";
import { createTestRuntime, providers, uid } from "./support/runtime";

// The runs list query on both databases: filters, search (run id prefix; text in the input through the
// search index, with the same meaning on both), keyset paging (also across runs created in the same
// millisecond, also while searching), the step from the latest checkpoint without reading any state, the
// state-error flag of a run the engine set aside; and the events query the run page's timeline pages with.

describe.each(providers())("runs list and events queries [%s]", (_provider, url) => {
  let t: ReturnType<typeof createTestRuntime>;
  const agent = uid("list-agent");
  const other = uid("other-agent");
  const base = new Date("2030-01-01T00:00:00Z").getTime(); // after every other test's runs: this test owns the top of the list
  const ids: string[] = [];

  function stateJson(slug: string, step = 0) {
    return JSON.stringify({
      ...initialState({ agent: { slug, version: "1", instructionsHash: "h" }, instructions: "", input: null }),
      step,
    });
  }

  beforeAll(async () => {
    t = createTestRuntime(url);
    // 7 runs of `agent`, two pairs sharing a createdAt, plus 2 of `other`; ids sort with creation order.
    const times = [0, 1000, 1000, 2000, 3000, 3000, 4000];
    const data = times.map((offset, i) => {
      const id = `run_${agent}_${String(i).padStart(2, "0")}`;
      ids.push(id);
      return {
        id,
        agentSlug: agent,
        agentVersion: "1",
        status: i % 2 === 0 ? "COMPLETED" : "FAILED",
        error: null as string | null,
        input: JSON.stringify({
          orderId: `ord-${agent}-${i}`,
          reason: i === 3 ? "Duplicate charge on Tuesday" : "late",
        }),
        state: stateJson(agent, i),
        stateSeq: i + 1,
        createdAt: new Date(base + offset),
        updatedAt: new Date(base + offset),
      };
    });
    data.push(
      {
        id: `run_${other}_a`,
        agentSlug: other,
        agentVersion: "1",
        status: "COMPLETED",
        error: null,
        input: "{}",
        state: stateJson(other),
        stateSeq: 1,
        createdAt: new Date(base + 500),
        updatedAt: new Date(base),
      },
      // Set aside by a worker that could not load its state (the store's quarantine writes this error); no checkpoint.
      {
        id: `run_${other}_bad`,
        agentSlug: other,
        agentVersion: "1",
        status: "FAILED",
        error: "unreadable state: state is not valid JSON",
        input: "{}",
        state: "{not json",
        stateSeq: 0,
        createdAt: new Date(base + 600),
        updatedAt: new Date(base),
      },
      // Broken by hand after it finished: nothing has loaded it since, and the list does not load states.
      {
        id: `run_${other}_edited`,
        agentSlug: other,
        agentVersion: "1",
        status: "COMPLETED",
        error: null,
        input: "{}",
        state: "{not json either",
        stateSeq: 2,
        createdAt: new Date(base + 700),
        updatedAt: new Date(base),
      },
    );
    await t.db.run.createMany({ data });
    // Every run of `agent` has a checkpoint per step; the list's step is the latest one's (seq = stateSeq).
    await t.db.checkpoint.createMany({
      data: [
        ...ids.flatMap((runId, i) =>
          Array.from({ length: i + 1 }, (_, seq) => ({ runId, seq: seq + 1, step: seq, state: stateJson(agent, seq) })),
        ),
        { runId: `run_${other}_a`, seq: 1, step: 0, state: stateJson(other) },
        { runId: `run_${other}_edited`, seq: 1, step: 0, state: stateJson(other) },
        { runId: `run_${other}_edited`, seq: 2, step: 3, state: stateJson(other, 3) },
      ],
    });
  });
  afterAll(async () => {
    await t.close();
  });

  const idsOf = (runs: RunListItem[]) => runs.map((r) => r.id);

  it("pages newest first with a keyset cursor: every run once, ties broken by id", async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await findRunList(t.db, { agent, cursor }, 2);
      expect(page.runs.length).toBeLessThanOrEqual(2);
      seen.push(...idsOf(page.runs));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(seen).toEqual(ids.toReversed());
  });

  it("filters by status and agent, and searches run ids (prefix) and input text", async () => {
    const failed = await findRunList(t.db, { agent, status: "FAILED" });
    expect(idsOf(failed.runs)).toEqual([ids[5], ids[3], ids[1]]);
    expect(failed.runs[0]).toMatchObject({ status: "FAILED", step: 5, agentSlug: agent });
    expect(idsOf((await findRunList(t.db, { q: ids[4] })).runs)).toEqual([ids[4]]);
    expect(idsOf((await findRunList(t.db, { q: `run_${agent}_0` })).runs)).toHaveLength(7);
    expect(idsOf((await findRunList(t.db, { q: "Duplicate charge" })).runs)).toEqual([ids[3]]);
    expect(idsOf((await findRunList(t.db, { q: `ord-${agent}-6`, status: "FAILED" })).runs)).toEqual([]);
    expect((await findRunList(t.db, { agent: uid("nobody") })).runs).toEqual([]);
    // a version narrows its agent (the admin agents page links to the runs pinned to one version)
    expect(idsOf((await findRunList(t.db, { agent, version: "1" })).runs)).toHaveLength(7);
    expect((await findRunList(t.db, { agent, version: "2" })).runs).toEqual([]);
  });

  it("searches input text the same way on both databases: a substring anywhere, ignoring case", async () => {
    const search = async (q: string) => idsOf((await findRunList(t.db, { agent, q })).runs);
    expect(await search("duplicate CHARGE")).toEqual([ids[3]]);
    expect(await search("uplicate charge on tue")).toEqual([ids[3]]); // mid-word, across words
    expect(await search('"late"')).toEqual([ids[6], ids[5], ids[4], ids[2], ids[1], ids[0]]); // quotes are text, here the JSON's
    expect(await search(`${agent}-4`.toUpperCase())).toEqual([ids[4]]);
    // Shorter than a trigram: matched without the index, with the same meaning.
    expect(await search("tU")).toEqual([ids[3]]);
    // LIKE's wildcards and FTS5's syntax are plain text to the search.
    for (const q of ["%", "_", "%late", "late OR charge", "late*", "NEAR(late)", "\\"])
      expect(await search(q)).toEqual([]);
    expect(await search("Reykjavik")).toEqual([]);
  });

  it("pages a search with its filters: every match once, newest first, ties broken by id", async () => {
    async function walk(filter: Omit<RunListFilter, "cursor">, pageSize: number) {
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await findRunList(t.db, { ...filter, cursor }, pageSize);
        expect(page.runs.length).toBeLessThanOrEqual(pageSize);
        seen.push(...idsOf(page.runs));
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
      return seen;
    }
    expect(await walk({ agent, q: "late" }, 2)).toEqual([ids[6], ids[5], ids[4], ids[2], ids[1], ids[0]]);
    expect(await walk({ agent, q: "late", status: "COMPLETED" }, 1)).toEqual([ids[6], ids[4], ids[2], ids[0]]);
    expect(await walk({ agent, version: "1", q: "ord-", status: "FAILED" }, 2)).toEqual([ids[5], ids[3], ids[1]]);
    const page = await findRunList(t.db, { agent, q: "late" }, 3);
    expect(page.runs[0]).toMatchObject({ id: ids[6], step: 6, status: "COMPLETED" }); // the same columns as any page
  });

  it("lists a run whose state cannot be read instead of failing the page; one the engine set aside is flagged", async () => {
    const { runs } = await findRunList(t.db, { agent: other });
    expect(runs.map((r) => [r.id, r.step, r.stateError ?? null])).toEqual([
      [`run_${other}_edited`, 3, null], // the list never parses a state: this one is found out when its page opens
      [`run_${other}_bad`, null, "state is not valid JSON"],
      [`run_${other}_a`, 0, null],
    ]);
  });

  it("reads no state and no input: the run's columns it shows, then the latest checkpoints' steps by key", async () => {
    const recorder = recordQueries(t.db);
    const { runs } = await findRunList(recorder.db, { agent, q: "late" });
    expect(runs.map((r) => r.step)).toEqual([6, 5, 4, 2, 1, 0]); // run 3's input says "Duplicate charge"
    for (const run of runs) {
      expect(run).not.toHaveProperty("state");
      expect(run).not.toHaveProperty("input");
    }
    expect(recorder.queries.map((q) => [q.model, q.operation])).toEqual([
      ["Run", "findMany"],
      ["Checkpoint", "findMany"],
    ]);
    for (const query of recorder.queries) {
      expect(selectedColumns(query)).not.toContain("*");
      expect(selectedColumns(query)).not.toContain("state");
      expect(selectedColumns(query)).not.toContain("input");
    }
  });

  it("cursors round-trip and garbage is ignored", () => {
    const cursor = { createdAt: new Date(base), id: "run_x.y" };
    expect(decodeRunCursor(encodeRunCursor(cursor))).toEqual(cursor);
    expect(decodeRunCursor("nonsense")).toBeUndefined();
    expect(decodeRunCursor(undefined)).toBeUndefined();
  });

  it("reads a run's events after a seq, in pages, with the run's head", async () => {
    t.runtime.context.agents.set(agent, {
      slug: agent,
      version: "1",
      name: agent,
      description: "",
      instructions: "x",
      input: (await import("zod")).z.unknown(),
      tools: [],
      policy: { decide: async () => ({ decision: { kind: "complete", output: 1 } }) },
    });
    const { run } = await t.runtime.startRun({ agent, input: { n: 1 } });
    await t.runtime.createWorker().drain();
    const all = await findRunEvents(t.db, run.id);
    expect(all.run).toMatchObject({ id: run.id, status: "COMPLETED" });
    expect(all.events.map((e) => e.seq)).toEqual(Array.from({ length: all.run.eventSeq }, (_, i) => i + 1));
    const first = await findRunEvents(t.db, run.id, { limit: 1 });
    expect(first).toMatchObject({ hasMore: true, events: [{ seq: 1, type: "run.created" }] });
    const rest = await findRunEvents(t.db, run.id, { after: 1 });
    expect(rest.hasMore).toBe(false);
    expect(rest.events[0].seq).toBe(2);
    expect(typeof rest.events[0].at).toBe("string");
    // Backwards from a seq (the timeline scrolled up): the newest events before it, oldest first.
    const last = all.run.eventSeq;
    const newest = await findRunEvents(t.db, run.id, { before: last + 1, limit: 2 });
    expect(newest).toMatchObject({ hasMore: true, events: [{ seq: last - 1 }, { seq: last }] });
    expect(await findRunEvents(t.db, run.id, { before: 2, limit: 2 })).toMatchObject({
      hasMore: false,
      events: [{ seq: 1 }],
    });
    expect((await findRunEvents(t.db, run.id, { before: 1 })).events).toEqual([]);
    await expect(findRunEvents(t.db, "run_missing")).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(findRunEvents(t.db, "run_missing", { before: 5 })).rejects.toMatchObject({ code: "NOT_FOUND" });
  });
});
