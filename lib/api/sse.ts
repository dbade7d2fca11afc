// Server-Sent Events for the console's live views (GET /api/console/runs/:id/stream, /api/console/packets/stream):
// a source is an async iterable of messages; this writes them as text/event-stream, adds a comment line every
// heartbeatMs (so proxies keep the connection and a dead one is noticed), and stops the source when the
// client goes away (the request's signal, or the body cancelled): its `finally` lets go of what it holds.

export type SseMessage = { event: string; data: unknown; id?: string };

export const HEARTBEAT_MS = 15_000;
/** What the browser waits before it reconnects (it sends Last-Event-ID then). */
export const RECONNECT_MS = 2_000;

const encoder = new TextEncoder();

/** One message as the wire carries it: JSON data is one line. */
export function formatSse(message: SseMessage): string {
  return `${message.id !== undefined ? `id: ${message.id}\n` : ""}event: ${message.event}\ndata: ${JSON.stringify(message.data)}\n\n`;
}

/** The id the browser sends back when it reconnects, if any (an EventSource does this by itself). */
export function lastEventIdOf(request: Request): string | undefined {
  return request.headers.get("last-event-id")?.trim() || undefined;
}

/**
 * The stream as a Response. `open` is given a signal that aborts when the client leaves (or the stream is
 * cancelled); its iterable must end soon after (the sources wait on that signal).
 */
export function sseResponse(
  open: (signal: AbortSignal) => AsyncIterable<SseMessage>,
  opts: { signal?: AbortSignal; heartbeatMs?: number } = {},
): Response {
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  opts.signal?.addEventListener("abort", onAbort, { once: true });
  if (opts.signal?.aborted) stop.abort();
  let heartbeat: ReturnType<typeof setInterval> | undefined;

  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      const send = (text: string) => {
        if (stop.signal.aborted) return;
        try {
          controller.enqueue(encoder.encode(text));
        } catch {
          stop.abort(); // the consumer is gone
        }
      };
      send(`retry: ${RECONNECT_MS}\n\n`);
      heartbeat = setInterval(() => send(": heartbeat\n\n"), opts.heartbeatMs ?? HEARTBEAT_MS);
      void (async () => {
        try {
          for await (const message of open(stop.signal)) {
            if (stop.signal.aborted) break;
            send(formatSse(message));
          }
        } catch (error) {
          if (!stop.signal.aborted) {
            console.error("[tether] live stream failed", error);
            send(formatSse({ event: "error", data: { message: "The live stream stopped; reconnecting." } }));
          }
        } finally {
          clearInterval(heartbeat);
          opts.signal?.removeEventListener("abort", onAbort);
          stop.abort();
          try {
            controller.close();
          } catch {
            // already closed or cancelled
          }
        }
      })();
    },
    cancel() {
      clearInterval(heartbeat);
      stop.abort();
    },
  });
  return new Response(body, {
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-store, no-transform",
      connection: "keep-alive",
      "x-accel-buffering": "no", // nginx: do not buffer the stream
    },
  });
}

/**
 * A wake-up for a source's loop: `nudge()` from a listener, `wait(ms, signal)` in the loop resolves on the
 * next nudge (or one that came while the loop was busy), after `ms` (the fallback read), or on abort.
 * Returns whether it was nudged.
 */
export function createNudge() {
  let isPending = false;
  let wake: (() => void) | null = null;
  return {
    nudge() {
      isPending = true;
      wake?.();
    },
    wait(ms: number, signal: AbortSignal): Promise<boolean> {
      if (isPending || signal.aborted) {
        const was = isPending;
        isPending = false;
        return Promise.resolve(was);
      }
      return new Promise<boolean>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          signal.removeEventListener("abort", done);
          wake = null;
          const was = isPending;
          isPending = false;
          resolve(was);
        };
        const timer = setTimeout(done, ms);
        signal.addEventListener("abort", done, { once: true });
        wake = done;
      });
    },
  };
}
