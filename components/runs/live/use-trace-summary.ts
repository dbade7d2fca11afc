"use client";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { fetchJson } from "@/lib/fetch-json";
import type { TraceSummary } from "@/lib/queries/run-trace-summary";
import { queryKeys } from "@/lib/query-keys";

// The trace's counts and cost (lib/queries/run-trace-summary.ts) as of the run's last event: one entry per
// eventSeq, so the page asks again only when the run has written events — at most once per live poll.

export function useTraceSummary(
  runId: string,
  eventSeq: number,
  initial: { eventSeq: number; summary: TraceSummary },
): TraceSummary {
  const query = useQuery({
    // under the run's events key: what invalidates the trace invalidates its summary
    queryKey: [...queryKeys.runs.events(runId), "summary", eventSeq],
    queryFn: () => fetchJson<TraceSummary>(`/api/console/runs/${encodeURIComponent(runId)}/trace-summary`),
    initialData: eventSeq === initial.eventSeq ? initial.summary : undefined,
    placeholderData: keepPreviousData, // the previous numbers stay on screen while the next ones load
    staleTime: Infinity, // the key moves with the trace instead
  });
  return query.data ?? initial.summary;
}
