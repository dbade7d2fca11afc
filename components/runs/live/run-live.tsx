"use client";
import { useRouter } from "next/navigation";
import { useEffect, useRef, type ReactNode } from "react";
import type { RunHead, TimelineEvent, TraceWindow } from "@/lib/queries/run-events";
import type { TraceSummary } from "@/lib/queries/run-trace-summary";
import type { LiveTokens } from "./use-run-stream";
import { createRequiredContext } from "./required-context";
import { useTraceSummary } from "./use-trace-summary";
import { useTraceWindow } from "./use-trace-window";

// The run page's live source: a window on the trace that grows as the timeline scrolls and, while the run
// is not finished, as it writes events (use-trace-window.ts: streamed, else polled), the running model
// step's tokens (use-run-stream.ts), the run's head that comes with every read,
// and the whole trace in numbers (use-trace-summary.ts), so the header, the timeline and the cost summary
// move together. A new checkpoint refetches only the snapshot (run-snapshot.tsx: state, recovery,
// checkpoint list); a status change, rarer, refreshes the server-rendered page (the header's lease, error
// and wait).

type RunLiveValue = {
  head: RunHead;
  /** The events the page holds: a contiguous stretch of the trace, oldest first. */
  events: TimelineEvent[];
  hasOlder: boolean;
  hasNewer: boolean;
  summary: TraceSummary;
  isLive: boolean;
  /** The live stream is open (else the page polls). */
  isStreaming: boolean;
  /** What the running model step has written so far, while it runs (not stored). */
  tokens: LiveTokens | null;
  isLoadingOlder: boolean;
  isLoadingNewer: boolean;
  loadOlder: () => void;
  loadNewer: () => void;
  error: string | null;
};

const RunLiveContext = createRequiredContext<RunLiveValue>("useRunLive", "RunLive");

export const useRunLive = RunLiveContext.useValue;

type RunLiveProps = { runId: string; initial: TraceWindow; initialSummary: TraceSummary; children: ReactNode };

export function RunLive({ runId, initial, initialSummary, children }: RunLiveProps) {
  const router = useRouter();
  const trace = useTraceWindow(runId, initial);
  const head = trace.window.run;
  const summary = useTraceSummary(runId, head.eventSeq, { eventSeq: initial.run.eventSeq, summary: initialSummary });

  // The server-rendered header shows one status (and its lease, error, wait): a status change refreshes it.
  const shownStatus = useRef(initial.run.status);
  useEffect(() => {
    if (head.status === shownStatus.current) return;
    shownStatus.current = head.status;
    router.refresh();
  }, [head.status, router]);

  const value: RunLiveValue = {
    head,
    events: trace.window.events,
    hasOlder: trace.window.hasOlder,
    hasNewer: trace.window.hasNewer,
    summary,
    isLive: trace.isLive,
    isStreaming: trace.isStreaming,
    tokens: trace.tokens,
    isLoadingOlder: trace.isLoadingOlder,
    isLoadingNewer: trace.isLoadingNewer,
    loadOlder: trace.loadOlder,
    loadNewer: trace.loadNewer,
    error: trace.error,
  };
  return <RunLiveContext.Provider value={value}>{children}</RunLiveContext.Provider>;
}
