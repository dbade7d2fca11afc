import { describe, expect, it } from "vitest";
import { createNudge, formatSse, sseResponse, type SseMessage } from "../lib/api/sse";
import { sseReader } from "./support/sse";
import { until } from "./support/until";

// The SSE writer under the console's live streams: messages as the wire carries them, heartbeats as comment
// lines between them, and a cancelled body stopping its source (its finally runs: what it held is released).

describe("sseResponse", () => {
  it("writes each message with its id and event, and a heartbeat comment while the source waits", async () => {
    const release = createNudge();
    const stop = new AbortController();
    const response = sseResponse(
      async function* (signal): AsyncIterable<SseMessage> {
        yield { event: "trace", id: "7", data: { seq: 7, text: "two\nlines" } };
        await release.wait(60_000, signal);
        yield { event: "run", data: { status: "COMPLETED" } };
      },
      { heartbeatMs: 5, signal: stop.signal },
    );
    expect(response.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    expect(response.headers.get("cache-control")).toContain("no-transform"); // no compression buffering it
    const stream = sseReader(response);
    expect(await stream.next()).toEqual({ event: "trace", id: "7", data: { seq: 7, text: "two\nlines" } });
    const after = stream.next(); // reads on, past comment lines
    await until("a heartbeat was written", () => stream.comments.includes(": heartbeat"));
    release.nudge();
    expect(await after).toEqual({ event: "run", data: { status: "COMPLETED" } });
    expect(await stream.next()).toBeNull(); // the source ended: so does the stream
  });

  it("stops the source when the client goes away", async () => {
    const stop = new AbortController();
    let isReleased = false;
    const response = sseResponse(
      async function* (signal): AsyncIterable<SseMessage> {
        try {
          yield { event: "ready", data: {} };
          await createNudge().wait(60_000, signal);
        } finally {
          isReleased = true;
        }
      },
      { signal: stop.signal },
    );
    const stream = sseReader(response);
    await stream.next();
    stop.abort();
    await until("the source let go", () => isReleased);
  });

  it("formats data as one line of JSON", () => {
    expect(formatSse({ event: "token", data: { delta: "a\nb" } })).toBe('event: token\ndata: {"delta":"a\\nb"}\n\n');
  });
});
