import type { Metadata } from "next";
import { RunsPagination } from "@/components/runs/runs-pagination";
import { RunsTable } from "@/components/runs/runs-table";
import { StatusFilter } from "@/components/runs/status-filter";
import { EmptyState } from "@/components/ui/empty-state";
import { PageHeader } from "@/components/ui/page-header";
import { statusLabel } from "@/components/ui/status-badge";
import { findRunsPage, parseRunStatus } from "@/lib/queries/runs";
import { firstParam, type SearchParams } from "@/lib/queries/search-params";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Runs" };

export default async function RunsPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const params = await searchParams;
  const status = parseRunStatus(firstParam(params.status));
  const cursor = firstParam(params.cursor);
  const { runs, nextCursor } = await findRunsPage({ status, cursor });

  return (
    <>
      <PageHeader title="Runs" description="Every agent run, newest first." />
      <StatusFilter active={status} />
      {runs.length === 0 ? (
        <EmptyState title={status ? `No ${statusLabel(status).toLowerCase()} runs` : "No runs yet"}>
          {status ? "Try another status filter." : "Runs appear here when an agent is started from the API, the CLI or MCP."}
        </EmptyState>
      ) : (
        <RunsTable runs={runs} />
      )}
      <RunsPagination status={status} isFirstPage={!cursor} nextCursor={nextCursor} />
    </>
  );
}
