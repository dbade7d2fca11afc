import { describe, expect, it } from "vitest";
import { joinCheckpointPages, withOlderPage } from "../components/runs/live/checkpoint-pages";
import { reduceTraceWindow } from "../components/runs/live/trace-window";
import type { CheckpointList } from "../lib/queries/run-checkpoints";
import type { RunEventsPage, RunHead, TimelineEvent, TraceWindow } from "../lib/queries/run-events";

// What the run page holds of a long run: a window on its trace that grows a page at a time at either end,
// whatever order the pages arrive in, and a checkpoint list of the newest page plus older pages on request.

const head = (
  eventSeq: number,
  updatedAt = `2030-01-01T00:00:${String(eventSeq % 60).padStart(2, "0")}.000Z`,
): RunHead => ({
  id: "run_w",
  status: "RUNNING",
  error: null,
  stateSeq: 1,
  eventSeq,
  updatedAt,
});
const event = (seq: number): TimelineEvent => ({
  seq,
  step: 0,
  type: "tool.call",
  at: "2030-01-01T00:00:00.000Z",
  data: {},
});
const seqs = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
const page = (from: number, to: number, hasMore: boolean, eventSeq = 100): RunEventsPage => ({
  run: head(eventSeq),
  events: seqs(from, to).map(event),
  hasMore,
});
const windowOf = (from: number, to: number, flags: { hasOlder: boolean; hasNewer: boolean }): TraceWindow => ({
  run: head(100),
  events: seqs(from, to).map(event),
  ...flags,
});
const held = (w: TraceWindow) => w.events.map((e) => e.seq);

describe("the trace window", () => {
  it("grows at both ends and says when either end of the trace is reached", () => {
    let w = windowOf(41, 60, { hasOlder: true, hasNewer: true });
    w = reduceTraceWindow(w, { type: "older", page: page(21, 40, true) });
    w = reduceTraceWindow(w, { type: "newer", page: page(61, 80, false) });
    w = reduceTraceWindow(w, { type: "older", page: page(1, 20, false) });
    expect(held(w)).toEqual(seqs(1, 80));
    expect(w).toMatchObject({ hasOlder: false, hasNewer: false });
  });

  it("holds every event once when pages overlap or come late (the poll and a scroll read the same events)", () => {
    let w = windowOf(1, 10, { hasOlder: false, hasNewer: false });
    w = reduceTraceWindow(w, { type: "newer", page: page(11, 15, false) });
    w = reduceTraceWindow(w, { type: "newer", page: page(11, 13, false) }); // read after seq 10 too, answered later
    w = reduceTraceWindow(w, { type: "older", page: page(1, 5, false) });
    expect(held(w)).toEqual(seqs(1, 15));
  });

  it("a run that finished between the poll's two reads still has its last events to load", () => {
    const finished = { ...page(11, 12, false), run: { ...head(14), status: "COMPLETED" as const } };
    expect(
      reduceTraceWindow(windowOf(1, 10, { hasOlder: false, hasNewer: false }), {
        type: "newer",
        page: finished,
        fromPoll: true,
      }),
    ).toMatchObject({ hasNewer: true });
    // Read by a scroll, the page's own word counts: a compacted run's head can stay ahead of its last event.
    expect(
      reduceTraceWindow(windowOf(1, 10, { hasOlder: false, hasNewer: true }), { type: "newer", page: finished }),
    ).toMatchObject({ hasNewer: false });
  });

  it("keeps the latest head: a slow answer does not take the run back in time", () => {
    let w = windowOf(1, 10, { hasOlder: false, hasNewer: false });
    w = reduceTraceWindow(w, { type: "head", run: { ...head(20, "2030-01-01T00:01:00.000Z"), status: "COMPLETED" } });
    w = reduceTraceWindow(w, {
      type: "newer",
      page: { ...page(11, 12, false), run: head(12, "2030-01-01T00:00:30.000Z") },
    });
    expect(w.run).toMatchObject({ status: "COMPLETED", eventSeq: 20 });
    expect(held(w)).toEqual(seqs(1, 12));
  });
});

const checkpoints = (from: number, to: number, hasOlder: boolean): CheckpointList => ({
  checkpoints: seqs(from, to).map((seq) => ({ seq, step: seq - 1, createdAt: "2030-01-01T00:00:00.000Z" })),
  hasOlder,
});
const listed = (list: CheckpointList) => list.checkpoints.map((c) => c.seq);

describe("the checkpoint pages", () => {
  it("older pages go below the newest page, each read before the oldest one shown", () => {
    const newest = checkpoints(451, 500, true);
    let held = withOlderPage(newest, checkpoints(401, 450, true));
    held = withOlderPage(joinCheckpointPages(newest, held), checkpoints(351, 400, true));
    expect(listed(joinCheckpointPages(newest, held))).toEqual(seqs(351, 500));
    expect(joinCheckpointPages(newest, held).hasOlder).toBe(true);
    const last = withOlderPage(joinCheckpointPages(newest, held), checkpoints(1, 350, false));
    expect(joinCheckpointPages(newest, last)).toMatchObject({
      hasOlder: false,
      checkpoints: expect.arrayContaining([expect.objectContaining({ seq: 1 })]),
    });
  });

  it("the newest page moves up with the run; what is held stays below it while the two meet", () => {
    const held = withOlderPage(checkpoints(451, 500, true), checkpoints(401, 450, true));
    expect(listed(joinCheckpointPages(checkpoints(461, 510, true), held))).toEqual(seqs(401, 510));
    // More than a page written between two snapshots: the ones in between were never read, so the newest page stands alone.
    const moved = checkpoints(521, 570, true);
    expect(joinCheckpointPages(moved, held)).toBe(moved);
    expect(listed(joinCheckpointPages(moved, withOlderPage(moved, checkpoints(471, 520, true))))).toEqual(
      seqs(471, 570),
    );
  });
});
