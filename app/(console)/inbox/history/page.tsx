import type { Metadata } from "next";
import { ConsoleLink } from "@/components/shell/console-links";
import { HistoryFilters } from "@/components/inbox/history-filters";
import { HistoryPagination } from "@/components/inbox/history-pagination";
import { HistoryTable } from "@/components/inbox/history-table";
import { AccessDenied } from "@/components/shell/access-denied";
import { EmptyState } from "@/components/ui/empty-state";
import { PageHeader } from "@/components/ui/page-header";
import { requirePageScope } from "@/lib/auth/session";
import { findConsoleDecisionHistory } from "@/lib/queries/console-pages";
import {
  isFilterActive,
  parseDecisionHistoryParams,
  toDecisionHistorySearchParams,
} from "@/lib/queries/decision-history";
import { findDeciders } from "@/lib/queries/packets";
import type { SearchParams } from "@/lib/queries/search-params";
import { findToolRegistry } from "@/lib/queries/tools";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Decision history" };

/** Who decides expired packets: offered with the people, so "what expired" is one pick away. */
const EXPIRY_DECIDER = "policy:expiry";

export default async function DecisionHistoryPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const [params, { user, isAllowed }] = await Promise.all([searchParams, requirePageScope("packets:read")]);
  if (!isAllowed) return <AccessDenied role={user.role} scope="packets:read" />;
  const { filter, ignored } = parseDecisionHistoryParams(params);
  const [page, deciders, tools] = await Promise.all([
    findConsoleDecisionHistory(filter),
    findDeciders(),
    findToolRegistry(),
  ]);
  // The filter without the cursor: the export holds every page of it, and the form is keyed by it.
  const filterQuery = toDecisionHistorySearchParams({ ...filter, cursor: undefined }).toString();
  const exportHref = `/api/console/packets/history.csv${filterQuery ? `?${filterQuery}` : ""}`;
  const isFiltered = isFilterActive(filter);

  return (
    <>
      <PageHeader
        title="Decision history"
        description="Every decided packet, the latest first: who decided, when, how long it waited and what the run did next."
        actions={
          <div className="flex items-center gap-4 text-sm">
            <a
              href={exportHref}
              download
              title="Every decision matching the filters, all pages"
              className="rounded border border-zinc-300 bg-white px-3 py-1.5 text-zinc-800 hover:bg-zinc-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-blue-600"
            >
              Export CSV
            </a>
            <ConsoleLink href="/inbox" className="text-blue-700 underline">
              Back to the inbox
            </ConsoleLink>
          </div>
        }
      />
      {/* Keyed by the filter: a navigation (Clear filters) remounts the form, so its fields show the URL's filter (defaultValue is read once). */}
      <HistoryFilters
        key={filterQuery}
        filter={filter}
        ignored={ignored}
        reviewers={[...deciders.map((d) => d.email), EXPIRY_DECIDER]}
        tools={tools.map((t) => t.name)}
      />
      {page.entries.length === 0 ? (
        <EmptyState
          title={isFiltered ? "No decisions match" : filter.cursor ? "No more decisions" : "No decisions yet"}
        >
          {isFiltered
            ? "Try another reviewer, tool, decision or range of days."
            : "Decisions on packets appear here once reviewers make them."}
        </EmptyState>
      ) : (
        <HistoryTable entries={page.entries} />
      )}
      <HistoryPagination filter={filter} newerCursor={page.newerCursor} olderCursor={page.olderCursor} />
    </>
  );
}
