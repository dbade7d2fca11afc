import type { Metadata } from "next";
import { runsListHref } from "@/components/runs/list-href";
import { RunsPagination } from "@/components/runs/runs-pagination";
import { RunsSearchForm } from "@/components/runs/runs-search-form";
import { RunsTable } from "@/components/runs/runs-table";
import { StatusFilter } from "@/components/runs/status-filter";
import { EmptyState } from "@/components/ui/empty-state";
import { PageHeader } from "@/components/ui/page-header";
import { statusLabel } from "@/components/ui/status-badge";
import { countConsoleRunsByStatus, findConsoleRunList } from "@/lib/queries/console-pages";
import { normalizeRunSearch, parseRunStatusFilter, type RunListFilter } from "@/lib/queries/run-list";
import { listAgentSlugs } from "@/lib/queries/runs";
import { firstParam, type SearchParams } from "@/lib/queries/search-params";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Runs" };

export default async function RunsPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const params = await searchParams;
  const filter: RunListFilter = {
    status: parseRunStatusFilter(firstParam(params.status)),
    agent: firstParam(params.agent) || undefined,
    version: firstParam(params.version) || undefined,
    q: normalizeRunSearch(firstParam(params.q)),
    cursor: firstParam(params.cursor) || undefined,
  };
  const isFiltered = Boolean(filter.status || filter.agent || filter.q);
  // Counts per status are over every run: shown only while no agent or search narrows the list.
  const isCountable = !filter.agent && !filter.q;
  const [{ runs, nextCursor }, counts] = await Promise.all([
    findConsoleRunList(filter),
    isCountable ? countConsoleRunsByStatus() : undefined,
  ]);

  return (
    <>
      <PageHeader title="Runs" description="Every agent run, newest first." />
      {/* Keyed by the filter: a navigation (Clear filters, a status chip) remounts the form, so its
          fields show the filter in the URL instead of what was typed before (defaultValue is read once). */}
      <RunsSearchForm key={runsListHref({ ...filter, cursor: undefined })} filter={filter} agents={listAgentSlugs()} />
      <StatusFilter filter={filter} counts={counts} />
      {runs.length === 0 ? (
        <EmptyState
          title={
            isFiltered
              ? `No ${filter.status ? statusLabel(filter.status).toLowerCase() + " " : ""}runs match`
              : "No runs yet"
          }
        >
          {isFiltered
            ? "Try another status, agent or search."
            : "Runs appear here when an agent is started from the API, the CLI or MCP."}
        </EmptyState>
      ) : (
        <RunsTable runs={runs} />
      )}
      <RunsPagination filter={filter} nextCursor={nextCursor} />
    </>
  );
}
