import { ConsoleLink } from "@/components/shell/console-links";
import { toDecisionHistorySearchParams, type DecisionHistoryFilter } from "@/lib/queries/decision-history";

type HistoryPaginationProps = { filter: DecisionHistoryFilter; newerCursor: string | null; olderCursor: string | null };

export function historyHref(filter: DecisionHistoryFilter): string {
  const query = toDecisionHistorySearchParams(filter).toString();
  return query ? `/inbox/history?${query}` : "/inbox/history";
}

const LINK =
  "rounded-md border border-zinc-300 bg-white px-3 py-1 text-sm text-zinc-700 hover:border-zinc-500 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-blue-600";

/** Keyset paging, filters kept: the newest page, the page above, the page below. No page numbers: a cursor page has none. */
export function HistoryPagination({ filter, newerCursor, olderCursor }: HistoryPaginationProps) {
  const isFirstPage = !filter.cursor;
  if (isFirstPage && !olderCursor) return null;
  return (
    <nav aria-label="Pagination" className="mt-4 flex items-center justify-between gap-2">
      <div className="flex gap-2">
        {!isFirstPage && (
          <ConsoleLink href={historyHref({ ...filter, cursor: undefined })} className={LINK}>
            ⇤ Newest
          </ConsoleLink>
        )}
        {newerCursor && (
          <ConsoleLink href={historyHref({ ...filter, cursor: newerCursor })} className={LINK}>
            ← Newer
          </ConsoleLink>
        )}
      </div>
      {olderCursor && (
        <ConsoleLink href={historyHref({ ...filter, cursor: olderCursor })} className={LINK}>
          Older →
        </ConsoleLink>
      )}
    </nav>
  );
}
