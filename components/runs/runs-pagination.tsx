import { ConsoleLink } from "@/components/shell/console-links";
import type { RunListFilter } from "@/lib/queries/run-list";
import { runsListHref } from "./list-href";

type RunsPaginationProps = { filter: RunListFilter; nextCursor: string | null };

/** Keyset paging: "Newest" and "Next page"; the cursor is the last run shown, so new runs never shift a page. */
export function RunsPagination({ filter, nextCursor }: RunsPaginationProps) {
  const isFirstPage = !filter.cursor;
  if (isFirstPage && !nextCursor) return null;
  const linkClass =
    "rounded-md border border-zinc-300 bg-white px-3 py-1 text-sm text-zinc-700 hover:border-zinc-500 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-blue-600";
  return (
    <nav aria-label="Pagination" className="mt-4 flex justify-between">
      {isFirstPage ? (
        <span />
      ) : (
        <ConsoleLink href={runsListHref({ ...filter, cursor: undefined })} className={linkClass}>
          ← Newest
        </ConsoleLink>
      )}
      {nextCursor && (
        <ConsoleLink href={runsListHref({ ...filter, cursor: nextCursor })} className={linkClass}>
          Next page →
        </ConsoleLink>
      )}
    </nav>
  );
}
