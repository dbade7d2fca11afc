import { describe, expect, it } from "vitest";
import { reduceTraceWindow } from "../components/runs/live/trace-window";
import { appendToken } from "../components/runs/live/use-run-stream";
import type { RunHead, TimelineEvent, TraceWindow } from "../lib/queries/run-events";

// The run page's side of the live stream: streamed events continue the window only where it ends (a gap or
// a reader scrolled back leaves them to be loaded), and a running step's tokens add up per step and attempt.

const head: RunHead = {
  id: "run_s",
  status: "RUNNING",
  error: null,
  stateSeq: 1,
  eventSeq: 10,
  updatedAt: "2030-01-01T00:00:00.000Z",
};
const event = (seq: number): TimelineEvent => ({
  seq,
  step: 1,
  type: "tool.call",
  at: "2030-01-01T00:00:00.000Z",
  data: {},
});
const windowOf = (to: number, hasNewer = false): TraceWindow => ({
  run: head,
  events: Array.from({ length: to }, (_, i) => event(i + 1)),
  hasOlder: false,
  hasNewer,
});
const seqs = (w: TraceWindow) => w.events.map((e) => e.seq);

describe("streamed trace events", () => {
  it("append when they continue the window, once each", () => {
    let w = reduceTraceWindow(windowOf(10), { type: "streamed", events: [event(11), event(12)] });
    w = reduceTraceWindow(w, { type: "streamed", events: [event(12), event(13)] }); // a resumed stream repeats nothing held
    expect(seqs(w)).toEqual(Array.from({ length: 13 }, (_, i) => i + 1));
    expect(w.hasNewer).toBe(false);
  });

  it("after a gap, or while the reader is scrolled back, mark the window as having newer events instead", () => {
    expect(reduceTraceWindow(windowOf(10), { type: "streamed", events: [event(13)] })).toMatchObject({
      hasNewer: true,
      events: windowOf(10).events,
    });
    const scrolledBack = windowOf(10, true);
    expect(reduceTraceWindow(scrolledBack, { type: "streamed", events: [event(11)] })).toBe(scrolledBack);
  });
});

describe("a running step's tokens", () => {
  it("add up per step and attempt; the tool's arguments apart from the text", () => {
    let t = appendToken(null, { step: 2, attempt: 1, kind: "text", delta: "Read" });
    t = appendToken(t, { step: 2, attempt: 1, kind: "text", delta: "ing" });
    t = appendToken(t, { step: 2, attempt: 1, kind: "tool", name: "orders_get", delta: '{"args":' });
    t = appendToken(t, { step: 2, attempt: 1, kind: "tool", name: "orders_get", delta: "{}}" });
    expect(t).toEqual({ step: 2, attempt: 1, text: "Reading", tool: { name: "orders_get", args: '{"args":{}}' } });
    expect(appendToken(t, { step: 2, attempt: 2, kind: "text", delta: "Again" })).toEqual({
      step: 2,
      attempt: 2,
      text: "Again",
      tool: null,
    });
    expect(appendToken(t, { step: 3, attempt: 1, kind: "text", delta: "Next" }).text).toBe("Next");
  });
});
