import type { TraceEvent } from "@/lib/runtime/types";
import { presentInterrupt, presentWaitResult, statusOfThread, threadValues, type ThreadView } from "./present";
import { getThread, type LangGraphDeps } from "./threads";

// After a resume the run is driven by a worker (the console's own, or separate ones): runs/wait and
// runs/stream follow it by reading the run until the thread is no longer busy — waiting for a person
// again (interrupted), completed (idle) or stopped (error) — or until the ceiling, after which the
// answer is the thread as it is then (still busy; the client reads it again later).

export const WAIT_CEILING_MS = 120_000;
const POLL_MS = 100;
const HEARTBEAT_MS = 10_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function waitForThread(
  deps: LangGraphDeps,
  threadId: string,
  opts: { signal?: AbortSignal; ceilingMs?: number } = {},
): Promise<ThreadView> {
  const deadline = Date.now() + (opts.ceilingMs ?? WAIT_CEILING_MS);
  for (;;) {
    const view = await getThread(deps, threadId);
    if (statusOfThread(view) !== "busy" || Date.now() >= deadline || opts.signal?.aborted) return view;
    await sleep(POLL_MS);
  }
}

export const STREAM_MODES = ["values", "updates", "events"] as const;
type StreamMode = (typeof STREAM_MODES)[number];

/** The modes asked for that Tether streams (values by default); others (messages, debug, custom…) send nothing. */
export function streamModesOf(asked: string | string[] | undefined): Set<StreamMode> {
  const list = asked === undefined ? ["values"] : Array.isArray(asked) ? asked : [asked];
  return new Set(list.filter((mode): mode is StreamMode => (STREAM_MODES as readonly string[]).includes(mode)));
}

const sse = (event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

/** A trace event as the protocol's `events` mode: the Agent Inbox shows `metadata.langgraph_node` as where the run is. */
function asStreamEvent(event: TraceEvent, runId: string) {
  return {
    event: "on_chain_start",
    name: event.type,
    run_id: runId,
    tags: [],
    metadata: { langgraph_node: event.type, langgraph_step: event.step, thread_id: event.runId, seq: event.seq },
    data: { input: event.data },
  };
}

/**
 * The SSE body of runs/stream: `metadata`, then each new trace event of the run (as `updates` and/or
 * `events`), `values` whenever the run moved, and at the end the final values (with `__interrupt__` when a
 * person is asked again) and an `error` event when the run failed, was cancelled or needs attention.
 */
export function streamThread(
  deps: LangGraphDeps,
  opts: { view: ThreadView; runId: string; modes: Set<StreamMode>; signal?: AbortSignal; ceilingMs?: number },
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const threadId = opts.view.run.id;
  let cancelled = false;
  return new ReadableStream<Uint8Array>({
    async start(controller) {
      // After the client hung up (cancel), nothing more is written.
      const write = (text: string) => {
        if (!cancelled) controller.enqueue(encoder.encode(text));
      };
      const send = (event: string, data: unknown) => write(sse(event, data));
      const deadline = Date.now() + (opts.ceilingMs ?? WAIT_CEILING_MS);
      let afterSeq = opts.view.run.eventSeq;
      let lastWrite = Date.now();
      let lastMove = "";
      try {
        send("metadata", { run_id: opts.runId, thread_id: threadId, attempt: 1 });
        for (;;) {
          const view = await getThread(deps, threadId);
          const events = await deps.runtime.store.listEvents(threadId, { afterSeq, limit: 200 });
          for (const event of events) {
            if (opts.modes.has("updates"))
              send("updates", { [event.type]: { step: event.step, seq: event.seq, ...event.data } });
            if (opts.modes.has("events")) send("events", asStreamEvent(event, opts.runId));
            afterSeq = event.seq;
            lastWrite = Date.now();
          }
          const status = statusOfThread(view);
          const settled = status !== "busy" && events.length === 0;
          const move = `${view.run.status}:${view.run.stateSeq}`;
          if (opts.modes.has("values") && move !== lastMove && !settled) {
            send("values", threadValues(view.run));
            lastWrite = Date.now();
          }
          lastMove = move;
          if (settled || Date.now() >= deadline || cancelled || opts.signal?.aborted) {
            if (status === "interrupted" && opts.modes.has("updates"))
              send("updates", { __interrupt__: view.pending.map((packet) => presentInterrupt(view, packet)) });
            if (opts.modes.has("values")) {
              const { __error__: _error, ...values } = presentWaitResult(view);
              send("values", values);
            }
            if (status === "error")
              send("error", {
                error: view.run.status,
                message: view.run.error ?? `The run is ${view.run.status.toLowerCase()}.`,
              });
            break;
          }
          if (Date.now() - lastWrite >= HEARTBEAT_MS) {
            write(": heartbeat\n\n");
            lastWrite = Date.now();
          }
          await sleep(POLL_MS);
        }
      } catch (error) {
        console.error("[tether] langgraph stream failed", error);
        send("error", { error: "INTERNAL", message: "The stream failed on the server; read the thread again." });
      }
      if (!cancelled) controller.close();
    },
    cancel() {
      cancelled = true;
    },
  });
}
