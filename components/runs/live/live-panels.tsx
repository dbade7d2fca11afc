"use client";
import { RecoveryView } from "../recovery-view";
import { CheckpointList } from "../checkpoint-list";
import { CheckpointCompare } from "../state-diff/checkpoint-compare";
import { StateView } from "../state-view";
import { useRunSnapshot } from "./run-snapshot";

// The run page's parts that follow the run's checkpoints, each reading the latest snapshot (run-snapshot.tsx).

/** The current state; its facts' freshness is judged at the time the snapshot was read. */
export function LiveCurrentState() {
  const { state, at } = useRunSnapshot();
  return state ? <StateView state={state} now={new Date(at)} /> : null;
}

export function LiveRecovery() {
  return <RecoveryView view={useRunSnapshot().recovery} />;
}

export function LiveCheckpointList({ selectedSeq }: { selectedSeq: number | null }) {
  const { runId, checkpoints, hasOlderCheckpoints } = useRunSnapshot();
  return <CheckpointList runId={runId} checkpoints={checkpoints} selectedSeq={selectedSeq} hasOlder={hasOlderCheckpoints} />;
}

export function LiveCheckpointCompare({ from, to }: { from?: number; to?: number }) {
  const { runId, checkpoints } = useRunSnapshot();
  return <CheckpointCompare runId={runId} checkpoints={checkpoints} from={from} to={to} />;
}
