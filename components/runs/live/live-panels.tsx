"use client";
import { RecoveryView } from "../recovery-view";
import { CheckpointList } from "../checkpoint-list";
import { CheckpointCompare } from "../state-diff/checkpoint-compare";
import { StateView } from "../state-view";
import { useCheckpointHistory } from "./checkpoint-history";
import { useRunSnapshot } from "./run-snapshot";

// The run page's parts that follow the run's checkpoints, each reading the latest snapshot (run-snapshot.tsx)
// or the checkpoints listed so far (checkpoint-history.tsx).

/** The current state; its facts' freshness is judged at the time the snapshot was read. */
export function LiveCurrentState() {
  const { state, at } = useRunSnapshot();
  return state ? <StateView state={state} now={new Date(at)} /> : null;
}

export function LiveRecovery() {
  return <RecoveryView view={useRunSnapshot().recovery} />;
}

export function LiveCheckpointList({ selectedSeq }: { selectedSeq: number | null }) {
  const { runId } = useRunSnapshot();
  const { checkpoints, hasOlder, isLoadingOlder, loadOlder, error } = useCheckpointHistory();
  return (
    <CheckpointList
      runId={runId}
      checkpoints={checkpoints}
      selectedSeq={selectedSeq}
      older={{ hasOlder, isLoading: isLoadingOlder, load: loadOlder, error }}
    />
  );
}

export function LiveCheckpointCompare({ from, to }: { from?: number; to?: number }) {
  const { runId } = useRunSnapshot();
  return <CheckpointCompare runId={runId} checkpoints={useCheckpointHistory().checkpoints} from={from} to={to} />;
}
