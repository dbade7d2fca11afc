"use client";
import { useRef, useState, type ReactNode } from "react";
import { fetchJson } from "@/lib/fetch-json";
import type { CheckpointList } from "@/lib/queries/run-checkpoints";
import { joinCheckpointPages, withOlderPage, type HeldCheckpoints } from "./checkpoint-pages";
import { createRequiredContext } from "./required-context";
import { useRunSnapshot } from "./run-snapshot";

// The checkpoints the run page lists and compares: the snapshot's newest page, and older pages read when
// the person asks for them (a long run has hundreds: the page does not send them all at once).

type CheckpointHistory = CheckpointList & {
  isLoadingOlder: boolean;
  loadOlder: () => Promise<void>;
  error: string | null;
};

const CheckpointHistoryContext = createRequiredContext<CheckpointHistory>(
  "useCheckpointHistory",
  "CheckpointHistoryProvider",
);

export const useCheckpointHistory = CheckpointHistoryContext.useValue;

export function CheckpointHistoryProvider({ children }: { children: ReactNode }) {
  const { runId, checkpoints, hasOlderCheckpoints } = useRunSnapshot();
  const [held, setHeld] = useState<HeldCheckpoints | null>(null);
  const [isLoadingOlder, setLoadingOlder] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const isInFlight = useRef(false);
  const shown = joinCheckpointPages({ checkpoints, hasOlder: hasOlderCheckpoints }, held);

  async function loadOlder() {
    const before = shown.checkpoints[0]?.seq;
    if (before === undefined || isInFlight.current) return;
    isInFlight.current = true;
    setLoadingOlder(true);
    try {
      const page = await fetchJson<CheckpointList>(
        `/api/console/runs/${encodeURIComponent(runId)}/checkpoints?before=${before}`,
      );
      setHeld(withOlderPage(shown, page));
      setError(null);
    } catch (e) {
      setError(e instanceof Error ? e.message : "Older checkpoints could not be loaded.");
    } finally {
      isInFlight.current = false;
      setLoadingOlder(false);
    }
  }

  const value: CheckpointHistory = { ...shown, isLoadingOlder, loadOlder, error };
  return <CheckpointHistoryContext.Provider value={value}>{children}</CheckpointHistoryContext.Provider>;
}
