import type { Metadata } from "next";
import Link from "next/link";
import { HistoryTable } from "@/components/inbox/history-table";
import { AccessDenied } from "@/components/shell/access-denied";
import { EmptyState } from "@/components/ui/empty-state";
import { PageHeader } from "@/components/ui/page-header";
import { requirePageScope } from "@/lib/auth/session";
import { findDecisionHistory } from "@/lib/queries/packets";
import { intParam, type SearchParams } from "@/lib/queries/search-params";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Decision history" };

export default async function DecisionHistoryPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const [query, { user, isAllowed }] = await Promise.all([searchParams, requirePageScope("packets:read")]);
  if (!isAllowed) return <AccessDenied role={user.role} scope="packets:read" />;
  const { entries, hasNext, page } = await findDecisionHistory({ page: intParam(query.page) ?? 1 });
  return (
    <>
      <PageHeader
        title="Decision history"
        description="Every decided packet, the latest first: who decided, when, how long it waited and what the run did next."
        actions={<Link href="/inbox" className="text-sm text-blue-700 underline">Back to the inbox</Link>}
      />
      {entries.length === 0 ? (
        <EmptyState title={page > 1 ? "No more decisions" : "No decisions yet"}>Decisions on packets appear here once reviewers make them.</EmptyState>
      ) : (
        <HistoryTable entries={entries} />
      )}
      <nav aria-label="Pages" className="mt-4 flex items-center gap-3 text-sm">
        {page > 1 && <Link href={page === 2 ? "/inbox/history" : `/inbox/history?page=${page - 1}`} className="text-blue-700 underline">Newer</Link>}
        <span className="text-zinc-600">Page {page}</span>
        {hasNext && <Link href={`/inbox/history?page=${page + 1}`} className="text-blue-700 underline">Older</Link>}
      </nav>
    </>
  );
}
