import { Card } from "@/components/ui/card";
import { Timestamp } from "@/components/ui/timestamp";
import type { RunDetail } from "@/lib/queries/runs";
import { CostSummary } from "./cost/cost-summary";
import { LiveCheckpointCompare, LiveCheckpointList, LiveCurrentState, LiveRecovery } from "./live/live-panels";
import { LiveTokens } from "./live/live-tokens";
import { StateDiffView } from "./state-diff/state-diff-view";
import { StateView } from "./state-view";
import { TraceTimeline } from "./timeline/trace-timeline";

type RunPanelsProps = {
  detail: RunDetail;
  now: Date;
  /** The checkpoint seqs the URL asks to compare, whether or not they exist. */
  compareFrom: number | undefined;
  compareTo: number | undefined;
};

/**
 * A readable run's page below its header: recovery, cost, the trace, the state at a checkpoint and a diff of
 * two. The live panels follow the run (inside RunLive and its providers); a past checkpoint and a diff are
 * rendered here, once.
 */
export function RunPanels({ detail, now, compareFrom, compareTo }: RunPanelsProps) {
  const { shownCheckpoint, compare } = detail;
  return (
    <>
      <h2 className="mb-2 text-sm font-semibold text-zinc-900">Recovery</h2>
      <LiveRecovery />

      <div className="mt-6">
        <CostSummary />
      </div>
      <LiveTokens />

      <div className="mt-6">
        <TraceTimeline />
      </div>

      <div className="mt-6 grid items-start gap-4 xl:grid-cols-[minmax(0,1fr)_18rem]">
        <Card
          title={shownCheckpoint ? `State at checkpoint #${shownCheckpoint.seq}` : "Current state"}
          description={
            shownCheckpoint ? (
              <>
                next step {shownCheckpoint.step} · <Timestamp value={shownCheckpoint.createdAt} />
              </>
            ) : detail.isCheckpointMissing ? (
              "That checkpoint does not exist; showing the current state."
            ) : (
              "The latest checkpoint, as the next worker will load it."
            )
          }
        >
          {shownCheckpoint ? <StateView state={shownCheckpoint.state} now={now} /> : <LiveCurrentState />}
        </Card>
        <Card title="Checkpoints" description="One per step; choose one to see its state.">
          <LiveCheckpointList selectedSeq={shownCheckpoint?.seq ?? null} />
        </Card>
      </div>

      <Card
        title="Compare checkpoints"
        description="What changed in the state between two checkpoints."
        className="mt-4"
      >
        <LiveCheckpointCompare from={compareFrom} to={compareTo} />
        {compare && (
          <StateDiffView
            before={compare.from.state}
            after={compare.to.state}
            fromSeq={compare.from.seq}
            toSeq={compare.to.seq}
          />
        )}
        {(compareFrom !== undefined || compareTo !== undefined) && !compare && (
          <p className="mt-2 text-sm text-red-800">One of those checkpoints does not exist.</p>
        )}
      </Card>
    </>
  );
}
