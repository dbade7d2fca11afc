import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { RunActions } from "@/components/runs/actions/run-actions";
import { CheckpointHistoryProvider } from "@/components/runs/live/checkpoint-history";
import { RunLive } from "@/components/runs/live/run-live";
import { RunSnapshotProvider } from "@/components/runs/live/run-snapshot";
import { RunHeader } from "@/components/runs/run-header";
import { RunPanels } from "@/components/runs/run-panels";
import { TraceTimeline } from "@/components/runs/timeline/trace-timeline";
import { UnreadableState } from "@/components/runs/unreadable-state";
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
  const { run } = detail;

  // RunLive follows the trace and the run's head; RunSnapshotProvider refetches what a new checkpoint
  // changes (recovery, current state, newest checkpoints), CheckpointHistoryProvider adds older checkpoints
  // when asked.
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
          <RunPanels detail={detail} now={now} compareFrom={compareFrom} compareTo={compareTo} />
        </CheckpointHistoryProvider>
      </RunSnapshotProvider>
    </RunLive>
  );
}
