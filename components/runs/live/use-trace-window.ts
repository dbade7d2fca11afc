"use client";
import { useQuery } from "@tanstack/react-query";
import { useCallback, useLayoutEffect, useReducer, useRef, useState } from "react";
import { fetchJson } from "@/lib/fetch-json";
import { TIMELINE_PAGE_SIZE, type RunEventsPage, type TraceWindow } from "@/lib/queries/run-events";
import { LIVE_INTERVAL_MS, queryKeys } from "@/lib/query-keys";
import { TERMINAL_STATUSES } from "@/lib/runtime/types";
import { firstSeqOf, lastSeqOf, reduceTraceWindow } from "./trace-window";
import { useRunStream } from "./use-run-stream";

// The trace window of the run page (trace-window.ts) and the ways it grows: the timeline asks for the
// page before or after it as it scrolls (loadOlder, loadNewer); the run's live stream (use-run-stream.ts)
// appends each event as it commits; and while the stream is not open (no EventSource, refused, reconnecting)
// and the run is not finished, a poll every LIVE_INTERVAL_MS reads what follows the window's last event.
// A reader scrolled back into a long trace gets the run's head only (one event's worth): the newer events
// load when they scroll down to them.

type Direction = "older" | "newer";

const fetchPage = (runId: string, range: string) =>
  fetchJson<RunEventsPage>(`/api/console/runs/${encodeURIComponent(runId)}/events?${range}`);

export function useTraceWindow(runId: string, initial: TraceWindow) {
  const [held, dispatch] = useReducer(reduceTraceWindow, initial);
  const [loading, setLoading] = useState<Record<Direction, boolean>>({ older: false, newer: false });
  const [loadError, setLoadError] = useState<string | null>(null);
  // What the poll and the loads read from: the window as last rendered (they run between renders). A layout
  // effect, so it is current before the timeline's effects ask for the next page.
  const latest = useRef(held);
  useLayoutEffect(() => {
    latest.current = held;
  }, [held]);
  const inFlight = useRef<Record<Direction, boolean>>({ older: false, newer: false });

  const isLive = !TERMINAL_STATUSES.includes(held.run.status);
  const stream = useRunStream(runId, initial.run.eventSeq, dispatch);
  const poll = useQuery({
    queryKey: queryKeys.runs.events(runId),
    queryFn: async () => {
      const current = latest.current;
      if (current.hasNewer) {
        const page = await fetchPage(runId, `after=${lastSeqOf(current)}&limit=1`);
        dispatch({ type: "head", run: page.run });
        return page;
      }
      const page = await fetchPage(runId, `after=${lastSeqOf(current)}&limit=${TIMELINE_PAGE_SIZE}`);
      dispatch({ type: "newer", page, fromPoll: true });
      return page;
    },
    // Not disabled for a finished run: a retry or a resume invalidates it (use-run-action.ts), and the
    // read that follows finds the run moving again.
    refetchInterval: isLive && !stream.isStreaming ? LIVE_INTERVAL_MS : false,
  });

  const load = useCallback(
    async (direction: Direction) => {
      const current = latest.current;
      const isAtEdge = direction === "older" ? !current.hasOlder : !current.hasNewer;
      if (isAtEdge || inFlight.current[direction]) return;
      inFlight.current[direction] = true;
      setLoading((was) => ({ ...was, [direction]: true }));
      try {
        const range = direction === "older" ? `before=${firstSeqOf(current)}` : `after=${lastSeqOf(current)}`;
        dispatch({ type: direction, page: await fetchPage(runId, `${range}&limit=${TIMELINE_PAGE_SIZE}`) });
        setLoadError(null);
      } catch (error) {
        setLoadError(error instanceof Error ? error.message : "The trace could not be loaded.");
      } finally {
        inFlight.current[direction] = false;
        setLoading((was) => ({ ...was, [direction]: false }));
      }
    },
    [runId],
  );
  const loadOlder = useCallback(() => load("older"), [load]);
  const loadNewer = useCallback(() => load("newer"), [load]);

  return {
    window: held,
    isLive,
    isStreaming: stream.isStreaming,
    tokens: stream.tokens,
    isLoadingOlder: loading.older,
    isLoadingNewer: loading.newer,
    error: loadError ?? (poll.error ? poll.error.message : null),
    loadOlder,
    loadNewer,
  };
}
