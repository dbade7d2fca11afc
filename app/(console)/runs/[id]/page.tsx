import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { RunActions } from "@/components/runs/actions/run-actions";
import { CostSummary } from "@/components/runs/cost/cost-summary";
import { CheckpointHistoryProvider } from "@/components/runs/live/checkpoint-history";
import {
  LiveCheckpointCompare,
  LiveCheckpointList,
  LiveCurrentState,
  LiveRecovery,
} from "@/components/runs/live/live-panels";
import { LiveTokens } from "@/components/runs/live/live-tokens";
import { RunLive } from "@/components/runs/live/run-live";
import { RunSnapshotProvider } from "@/components/runs/live/run-snapshot";
import { RunHeader } from "@/components/runs/run-header";
import { StateDiffView } from "@/components/runs/state-diff/state-diff-view";
import { StateView } from "@/components/runs/state-view";
import { TraceTimeline } from "@/components/runs/timeline/trace-timeline";
import { UnreadableState } from "@/components/runs/unreadable-state";
import { Card } from "@/components/ui/card";
import { Timestamp } from "@/components/ui/timestamp";
import { can } from "@/lib/auth/rbac";
import { requirePageUser } from "@/lib/auth/session";
import { findRunFamily } from "@/lib/queries/run-family";
import { deployedVersionOf, getRunDetail } from "@/lib/queries/runs";
import { intParam, type SearchParams } from "@/lib/queries/search-params";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Run" };

type RunPageProps = { params: Promise<{ id: string }>; searchParams: Promise<SearchParams> };

export default async function RunPage({ params, searchParams }: RunPageProps) {
  const [{ id }, query, user] = await Promise.all([params, searchParams, requirePageUser()]);
  const compareFrom = intParam(query.from);
  const compareTo = intParam(query.to);
  const detail = await getRunDetail(id, { checkpoint: intParam(query.checkpoint), compareFrom, compareTo });
  if (!detail) notFound();
  const family = await findRunFamily(detail.run);
  const now = new Date();
  if (detail.kind === "unreadable") {
    return (
      <RunLive key={detail.run.id} runId={detail.run.id} initial={detail.trace} initialSummary={detail.traceSummary}>
        <RunHeader run={detail.run} now={now} family={family} />
        <UnreadableState detail={detail} />
        <div className="mt-6">
          <TraceTimeline />
        </div>
      </RunLive>
    );
  }
  const { run, shownCheckpoint, compare } = detail;

  // RunLive follows the trace and the run's head; RunSnapshotProvider refetches what a new checkpoint
  // changes (recovery, current state, newest checkpoints), CheckpointHistoryProvider adds older checkpoints
  // when asked. A past checkpoint and a diff are rendered here, once.
  return (
    <RunLive key={run.id} runId={run.id} initial={detail.trace} initialSummary={detail.traceSummary}>
      <RunSnapshotProvider initial={detail.snapshot}>
        <CheckpointHistoryProvider>
          <RunHeader
            run={run}
            now={now}
            family={family}
            actions={
              can(user.role, "runs:operate") ? (
                <RunActions runId={run.id} upgradeTo={deployedVersionOf(run)} />
              ) : undefined
            }
          />

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
        </CheckpointHistoryProvider>
      </RunSnapshotProvider>
    </RunLive>
  );
}
