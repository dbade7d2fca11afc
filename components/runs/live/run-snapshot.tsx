"use client";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { fetchJson } from "@/lib/fetch-json";
import type { RunSnapshot } from "@/lib/queries/runs";
import { queryKeys } from "@/lib/query-keys";
import { createRequiredContext } from "./required-context";
import { useRunLive } from "./run-live";

// What the run page shows that changes with each checkpoint — the current state, the recovery view and
// the checkpoint list — as one query keyed by the run's stateSeq and status. RunLive polls only the
// run's head and new events; when the head says a checkpoint was written, this fetches one snapshot
// (and nothing else: not the trace, not a past checkpoint's state, not the page). The snapshot lists the
// newest checkpoints; older ones are read a page at a time when asked for (checkpoint-history.tsx).

const RunSnapshotContext = createRequiredContext<RunSnapshot>("useRunSnapshot", "RunSnapshotProvider");

export const useRunSnapshot = RunSnapshotContext.useValue;

const fetchSnapshot = (runId: string, withState: boolean) =>
  fetchJson<RunSnapshot>(`/api/console/runs/${encodeURIComponent(runId)}/snapshot?state=${withState ? 1 : 0}`);

type RunSnapshotProviderProps = { initial: RunSnapshot; children: ReactNode };

/** `initial` is the server's snapshot; it stands until the run's head moves past it. */
export function RunSnapshotProvider({ initial, children }: RunSnapshotProviderProps) {
  const { head } = useRunLive();
  const withState = initial.state !== null;
  const at = { stateSeq: head.stateSeq, status: head.status, withState };
  const isInitialCurrent = initial.stateSeq === head.stateSeq && initial.status === head.status;
  const query = useQuery({
    queryKey: queryKeys.runs.snapshot(initial.runId, at),
    queryFn: () => fetchSnapshot(initial.runId, withState),
    initialData: isInitialCurrent ? initial : undefined,
    placeholderData: keepPreviousData, // the previous snapshot stays on screen while the next one loads
    staleTime: Infinity, // a checkpoint does not change once written: the key moves instead
  });
  return <RunSnapshotContext.Provider value={query.data ?? initial}>{children}</RunSnapshotContext.Provider>;
}
