"use client";
import { useEffect, useState, type Dispatch } from "react";
import type { TokenChunk } from "@/lib/live/live-feed";
import type { RunHead, TimelineEvent } from "@/lib/queries/run-events";
import type { TraceWindowAction } from "./trace-window";
import { withWorkspaceParam } from "@/lib/workspaces/paths";

// The run page's live stream (GET /api/console/runs/:id/stream, Server-Sent Events): trace events as they
// commit and the run's head go to the trace window; a running model step's tokens are held here until the
// step's events arrive. isStreaming is true while the stream is open: the window's poll stops meanwhile, and
// takes over when the browser has no EventSource, the stream is refused, or it is reconnecting.

/** What the running step's model has written so far (not stored: it goes when the step's events arrive). */
export type LiveTokens = { step: number; attempt: number; text: string; tool: { name?: string; args: string } | null };

export function useRunStream(runId: string, after: number, dispatch: Dispatch<TraceWindowAction>) {
  const [isStreaming, setStreaming] = useState(false);
  const [tokens, setTokens] = useState<LiveTokens | null>(null);

  useEffect(() => {
    if (typeof EventSource === "undefined") return;
    const source = new EventSource(
      withWorkspaceParam(`/api/console/runs/${encodeURIComponent(runId)}/stream?after=${after}`),
    );
    // Trace events come in bursts (a step's commit): one render for a burst.
    let batch: TimelineEvent[] = [];
    let flush: ReturnType<typeof setTimeout> | undefined;
    const flushBatch = () => {
      flush = undefined;
      const events = batch;
      batch = [];
      dispatch({ type: "streamed", events });
      const lastStep = events.at(-1)?.step ?? -1;
      setTokens((held) => (held && held.step <= lastStep ? null : held));
    };
    source.onopen = () => setStreaming(true);
    source.onerror = () => setStreaming(false); // reconnecting (the poll covers the gap) or refused for good
    source.addEventListener("trace", (message) => {
      batch.push(JSON.parse((message as MessageEvent<string>).data) as TimelineEvent);
      flush ??= setTimeout(flushBatch, 0);
    });
    source.addEventListener("run", (message) => {
      if (flush) {
        clearTimeout(flush);
        flushBatch();
      } // the head follows its events
      dispatch({ type: "head", run: JSON.parse((message as MessageEvent<string>).data) as RunHead });
    });
    source.addEventListener("token", (message) => {
      const chunk = JSON.parse((message as MessageEvent<string>).data) as TokenChunk;
      setTokens((held) => appendToken(held, chunk));
    });
    return () => {
      clearTimeout(flush);
      source.close();
      setStreaming(false);
    };
  }, [runId, after, dispatch]);

  return { isStreaming, tokens };
}

/** A chunk added to what the step has written; a new step or a new attempt starts afresh. */
export function appendToken(held: LiveTokens | null, chunk: TokenChunk): LiveTokens {
  const current =
    held && held.step === chunk.step && held.attempt === chunk.attempt
      ? held
      : { step: chunk.step, attempt: chunk.attempt, text: "", tool: null };
  if (chunk.kind === "text") return { ...current, text: current.text + chunk.delta };
  const tool = current.tool && current.tool.name === chunk.name ? current.tool : { name: chunk.name, args: "" };
  return { ...current, tool: { ...tool, args: tool.args + chunk.delta } };
}
