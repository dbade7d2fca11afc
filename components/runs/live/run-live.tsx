"use client";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { createContext, useContext, useEffect, useRef, type ReactNode } from "react";
import type { RunEventsPage, RunHead, TimelineEvent } from "@/lib/queries/run-events";
import { fetchJson } from "@/lib/fetch-json";
import { LIVE_INTERVAL_MS, queryKeys } from "@/lib/query-keys";
import { TERMINAL_STATUSES } from "@/lib/runtime/types";

// The run page's live source: it holds every trace event loaded so far and the run's head. It pulls
// events by seq (after=<last seq>) — at once while there is a backlog, then every LIVE_INTERVAL_MS while
// the run is not finished — so the header, the timeline and the cost summary grow together. A new
// checkpoint refetches only the snapshot (run-snapshot.tsx: state, recovery, checkpoint list); a status
// change, rarer, refreshes the server-rendered page (the header's lease, error and wait).

type RunLiveValue = { head: RunHead; events: TimelineEvent[]; isLive: boolean; isLoadingBacklog: boolean; error: string | null };

const RunLiveContext = createContext<RunLiveValue | null>(null);

export function useRunLive(): RunLiveValue {
  const value = useContext(RunLiveContext);
  if (!value) throw new Error("useRunLive needs <RunLive>");
  return value;
}

const fetchEvents = (runId: string, after: number) => fetchJson<RunEventsPage>(`/api/console/runs/${encodeURIComponent(runId)}/events?after=${after}`);

const lastSeqOf = (page: RunEventsPage) => page.events.at(-1)?.seq ?? 0;

export function RunLive({ runId, initial, children }: { runId: string; initial: RunEventsPage; children: ReactNode }) {
  const router = useRouter();
  const queryClient = useQueryClient();
  const key = queryKeys.runs.events(runId);

  // The cache holds every event read so far; each fetch asks only for what follows the last one.
  const query = useQuery({
    queryKey: key,
    queryFn: async (): Promise<RunEventsPage> => {
      const held = queryClient.getQueryData<RunEventsPage>(key) ?? initial;
      const page = await fetchEvents(runId, lastSeqOf(held));
      const fresh = page.events.filter((e) => e.seq > lastSeqOf(held));
      return { run: page.run, events: fresh.length > 0 ? [...held.events, ...fresh] : held.events, hasMore: page.hasMore };
    },
    initialData: initial,
    refetchInterval: (q) => {
      const data = q.state.data;
      if (!data) return false;
      if (data.hasMore || data.run.eventSeq > lastSeqOf(data)) return 1; // a backlog: keep reading
      return TERMINAL_STATUSES.includes(data.run.status) ? false : LIVE_INTERVAL_MS;
    },
  });
  const { run: head, events, hasMore } = query.data;
  const isLive = !TERMINAL_STATUSES.includes(head.status);
  const isBehind = hasMore || head.eventSeq > lastSeqOf(query.data);

  // The server-rendered header shows one status (and its lease, error, wait): a status change refreshes it.
  const shownStatus = useRef(initial.run.status);
  useEffect(() => {
    if (head.status === shownStatus.current) return;
    shownStatus.current = head.status;
    router.refresh();
  }, [head.status, router]);

  const value: RunLiveValue = { head, events, isLive, isLoadingBacklog: isBehind, error: query.error ? query.error.message : null };
  return <RunLiveContext.Provider value={value}>{children}</RunLiveContext.Provider>;
}
