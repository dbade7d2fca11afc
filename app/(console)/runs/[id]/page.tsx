import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { CheckpointList } from "@/components/runs/checkpoint-list";
import { RecoveryView } from "@/components/runs/recovery-view";
import { RunHeader } from "@/components/runs/run-header";
import { StateView } from "@/components/runs/state-view";
import { TraceTimeline } from "@/components/runs/trace-timeline";
import { Card } from "@/components/ui/card";
import { Timestamp } from "@/components/ui/timestamp";
import { getRunDetail } from "@/lib/queries/runs";
import { intParam, type SearchParams } from "@/lib/queries/search-params";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Run" };

type RunPageProps = { params: Promise<{ id: string }>; searchParams: Promise<SearchParams> };

export default async function RunPage({ params, searchParams }: RunPageProps) {
  const [{ id }, query] = await Promise.all([params, searchParams]);
  const detail = await getRunDetail(id, intParam(query.checkpoint));
  if (!detail) notFound();
  const now = new Date();
  const { run, shownCheckpoint } = detail;

  return (
    <>
      <RunHeader run={run} now={now} />
      <h2 className="mb-2 text-sm font-semibold text-zinc-900">Recovery</h2>
      <RecoveryView view={detail.recovery} />

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
          <StateView state={detail.shownState} now={now} />
        </Card>
        <Card title="Checkpoints" description="One per step; choose one to see its state.">
          <CheckpointList runId={run.id} checkpoints={detail.checkpoints} selectedSeq={shownCheckpoint?.seq ?? null} />
        </Card>
      </div>

      <h2 className="mt-6 mb-2 text-sm font-semibold text-zinc-900">Trace</h2>
      <TraceTimeline events={detail.events} hasMore={detail.hasMoreEvents} />
    </>
  );
}
